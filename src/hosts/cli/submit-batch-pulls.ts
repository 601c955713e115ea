import { fleetLandNotPr, noPullRepo, pullOptionWithoutLand } from '../../contract/fleet-pull-messages.js';
import { isPlainHttpUrl } from '../../contract/plain-http-url.js';
import type { FleetBatchTask } from '../../fleet/batch-input.js';
import type { RepoRef } from '../../github/github-api.js';
import { repoOfRemoteUrl } from '../../github/repo-ref.js';
import { repoRefOf } from './batch-github-tasks.js';
import { PULL_FLAGS, PULL_KEYS } from './github-task-options.js';
import { refuse, SUBMIT_BATCH, type SubmitBatchOptions } from './submit-batch-options.js';

/**
 * What a batch task's row says of its pull request (`--land pr`): that it lands as one, stacked or not, on which
 * repository, and where its report is — never a token (the worker's own opens it), never an API URL (the worker's
 * --github-api). The repository is --github-repo's, else --from-github's, else the --repo URL's on GitHub; none
 * known is refused, submitting nothing.
 */
export async function pullsOf(options: SubmitBatchOptions, repo: string): Promise<Partial<FleetBatchTask>> {
  if (options.land === undefined) {
    const stray = PULL_KEYS.find((key) => options[key] !== undefined);
    if (stray !== undefined) throw refuse(pullOptionWithoutLand(PULL_FLAGS[stray]));
    return {};
  }
  if (options.land !== 'pr') throw refuse(fleetLandNotPr(options.land));
  const named = options.githubRepo ?? options.fromGithub;
  let github: RepoRef | null;
  if (named !== undefined) github = repoRefOf(named, SUBMIT_BATCH);
  else github = repoOfRemoteUrl(repo);
  if (github === null) throw refuse(noPullRepo());
  const { reportUrl } = options;
  if (reportUrl !== undefined && !isPlainHttpUrl(reportUrl))
    throw refuse(
      `ralph submit --report-url must be an http(s) URL with no credential (got ${JSON.stringify(reportUrl)})`,
    );
  return {
    land: 'pr',
    ...(options.stack === true ? { stack: true } : {}),
    github,
    ...(reportUrl === undefined ? {} : { reportUrl }),
  };
}
