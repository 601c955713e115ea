import { idProblem } from '../contract/batch-tasks.js';
import { maskUrlCredentials } from '../contract/url-credentials.js';
import { repoUrlProblem } from '../workspace/git-remote.js';
import { rollbackRemoteSession } from '../workspace/git-remote-session.js';
import { rollbackSession } from '../workspace/git-session.js';
import { refuse } from './batch-checks.js';

/** A rolled-back batch's target: its name, the commit it was on, and the batch's start commit it is on now. */
export interface BatchRollback {
  target: string;
  from: string;
  to: string;
}

/**
 * Puts a batch's target back on the batch's starting commit, in the repository `cwd` is in, or with `repo` (a URL)
 * on that remote (a fleet batch's). A bad batch id or URL is refused before anything is touched.
 */
export async function rollbackBatchTarget(
  batchId: string,
  cwd: string,
  repo?: string,
): Promise<BatchRollback> {
  const idRefused = idProblem(batchId);
  if (idRefused !== null)
    throw refuse(`ralph batch --rollback ${JSON.stringify(batchId)} is refused: the batch id ${idRefused}`);
  if (repo !== undefined) {
    const problem = repoUrlProblem(repo);
    if (problem !== null)
      throw refuse(`ralph batch --repo ${JSON.stringify(maskUrlCredentials(repo))} is refused: ${problem}`);
  }
  return repo === undefined ? rollbackSession(cwd, batchId) : rollbackRemoteSession(repo, batchId);
}
