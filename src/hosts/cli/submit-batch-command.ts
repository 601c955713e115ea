import { tmpdir } from 'node:os';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import { newBatchId } from '../../batch/id.js';
import { taskOptions } from '../../batch/loops.js';
import { readTasksFile } from '../../batch/tasks-file.js';
import { type TasksTrustOptions, tasksAsTrusted } from '../../batch/tasks-trust.js';
import type { BatchTask } from '../../contract/batch-tasks.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../../contract/config.js';
import { parseDuration } from '../../contract/duration.js';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { fleetLandNotPr, noPullRepo, pullOptionWithoutLand } from '../../contract/fleet-pull-messages.js';
import { tasksFileAndGitHub, trustTasksWithGitHub } from '../../contract/github-task-messages.js';
import { isPlainHttpUrl } from '../../contract/plain-http-url.js';
import { maskUrlCredentials } from '../../contract/url-credentials.js';
import type { BatchBudget } from '../../fleet/batch-budget.js';
import type { FleetBatchSubmission } from '../../fleet/batch-client.js';
import type { FleetBatchTask } from '../../fleet/batch-input.js';
import type { RepoRef } from '../../github/github-api.js';
import { repoOfRemoteUrl } from '../../github/repo-ref.js';
import { lsRemote, repoUrlProblem } from '../../workspace/git-remote.js';
import { startRemoteSession } from '../../workspace/git-remote-session.js';
import { sessionBranch, taskBranch } from '../../workspace/git-session.js';
import {
  assertNoGitHubFilter,
  type GitHubTasksOptions,
  readGitHubTasks,
  repoRefOf,
} from './batch-github-tasks.js';
import { anyWorkerLive, NO_LIVE_WORKER, reportFleetFailure, withFleet } from './fleet-cli.js';
import { PULL_FLAGS, PULL_KEYS } from './github-task-options.js';
import { guardRailConfig } from './guard-rail-options.js';
import { type SubmitOptions, submissionOf } from './submit-command.js';

/** The options `ralph submit --batch` adds to those of `ralph submit`. */
export interface SubmitBatchOptions extends SubmitOptions, TasksTrustOptions, GitHubTasksOptions {
  /** The tasks file; `true` for `--batch` without one (its tasks then come from `--from-github`). */
  batch?: string | true;
  /** The repository's URL every worker clones and pushes to. */
  repo?: string;
  /** The branch the batch lands on (default: a new branch `ralph/batch-<id>` from the remote's HEAD). */
  into?: string;
  /** A conflict at a landing goes to a resolver loop of the task's agent (needs --verify). */
  resolveConflicts?: boolean;
  /** `pr`: each task goes out as a pull request, opened by a worker with `--allow-github` (its token). */
  land?: string;
  /** With `--land pr`: a task after another opens its pull request against that task's branch. */
  stack?: boolean;
  /** With `--land pr`: the repository the pull requests are opened on. */
  githubRepo?: string;
  /** With `--land pr`: where the batch's report page is published. */
  reportUrl?: string;
}

/**
 * What a batch task's row says of its pull request (`--land pr`): that it lands as one, stacked or not, on which
 * repository, and where its report is — never a token (the worker's own opens it), never an API URL (the worker's
 * --github-api). The repository is --github-repo's, else --from-github's, else the --repo URL's on GitHub; none
 * known is refused, submitting nothing.
 */
async function pullsOf(options: SubmitBatchOptions, repo: string): Promise<Partial<FleetBatchTask>> {
  if (options.land === undefined) {
    const stray = PULL_KEYS.find((key) => options[key] !== undefined);
    if (stray !== undefined) throw refuse(pullOptionWithoutLand(PULL_FLAGS[stray]));
    return {};
  }
  if (options.land !== 'pr') throw refuse(fleetLandNotPr(options.land));
  const named = options.githubRepo ?? options.fromGithub;
  let github: RepoRef | null;
  if (named !== undefined) github = repoRefOf(named, COMMAND);
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

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

const COMMAND = 'ralph submit --batch';

/** The tasks file `--batch` names, if it names one. */
const tasksFileOf = (options: SubmitBatchOptions): string | undefined =>
  typeof options.batch === 'string' ? options.batch : undefined;

/**
 * The batch's tasks: those of the tasks file as the command line lets them run (a command it names needs
 * --trust-tasks), or with `--from-github` those of the repository's issues, read here with this host's token (a
 * taken or skipped issue said on stderr). On the fleet the token is the worker's: the submitter's stays in this
 * process, and goes from its environment once the client holds it.
 */
async function readTasks(options: SubmitBatchOptions): Promise<BatchTask[]> {
  const said = (line: string) => process.stderr.write(`${COMMAND}: ${line}\n`);
  const file = tasksFileOf(options);
  const { fromGithub } = options;
  if (fromGithub !== undefined) {
    if (file !== undefined) throw refuse(tasksFileAndGitHub(COMMAND));
    if (options.trustTasks === true) throw refuse(trustTasksWithGitHub(COMMAND));
    // Loaded only here: a batch from a tasks file never loads the GitHub client.
    const { connectGitHub } = await import('./github-connect.js');
    const tasks = await readGitHubTasks({ ...options, fromGithub }, said, connectGitHub, COMMAND);
    // An issue's task is its id, objective and order, whatever else a task may hold: no issue names a command.
    return inOrder(tasks.map(({ id, objective, after }) => ({ id, objective, after })));
  }
  assertNoGitHubFilter(options, COMMAND);
  if (file === undefined)
    throw refuse('ralph submit --batch needs a tasks file, or --from-github OWNER/REPO --label NAME');
  const use = { command: COMMAND, file, nothing: 'nothing was submitted' };
  return inOrder(tasksAsTrusted(await readTasksFile(file, COMMAND), options, use, said));
}

/** The tasks in an order where every task comes after those it names in `after`. */
function inOrder(tasks: BatchTask[]): BatchTask[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const ordered: BatchTask[] = [];
  // A set, not ordered.includes: a 1 MiB checklist holds some 100,000 tasks, and a scan per task would be quadratic.
  const placed = new Set<BatchTask>();
  const visit = (task: BatchTask) => {
    if (placed.has(task)) return;
    for (const before of task.after) visit(byId.get(before) as BatchTask);
    placed.add(task);
    ordered.push(task);
  };
  for (const task of tasks) visit(task);
  return ordered;
}

/**
 * The ref the batch starts from on the remote (`refs/heads/<into>`, else `HEAD`), checked with `git ls-remote`:
 * a remote without it is refused before anything is written there.
 */
async function startRefOf(repo: string, into: string | undefined): Promise<string> {
  const ref = into === undefined ? 'HEAD' : `refs/heads/${into}`;
  let found: string | null;
  try {
    found = await lsRemote(tmpdir(), repo, ref);
  } catch (error) {
    throw refuse(`ralph submit --repo ${repo}: cannot read the repository: ${errorText(error)}`);
  }
  if (found === null)
    throw refuse(
      into === undefined
        ? `ralph submit --repo ${repo}: the repository has no HEAD commit to start a batch from`
        : `ralph submit --into ${into}: there is no such branch in ${repo}`,
    );
  return ref;
}

/**
 * The batch's own budget: `--max-time` counted from now (the submit), `--max-cost` summed over its tasks' runs;
 * absent without either, so a batch without them is submitted as before.
 */
function batchBudgetOf(options: SubmitOptions): BatchBudget | undefined {
  const { maxWallTimeMs, maxCostUsd } = guardRailConfig(options);
  if (maxWallTimeMs === undefined && maxCostUsd === undefined) return undefined;
  return {
    deadline: maxWallTimeMs === undefined ? null : Date.now() + maxWallTimeMs,
    maxCostUsd: maxCostUsd ?? null,
  };
}

/**
 * The batch's submission: every task as a fleet run with the options of `ralph submit` (its own agent, verify and
 * round cap in their place), checked as `ralph submit` checks one run before the database is asked.
 */
export async function batchSubmissionOf(options: SubmitBatchOptions): Promise<FleetBatchSubmission> {
  // --trust-tasks and the GitHub options are this command's own: none goes with a task to a worker.
  const {
    batch: _batch,
    repo,
    into,
    resolveConflicts,
    trustTasks: _trust,
    fromGithub: _fromGithub,
    label: _label,
    assignee: _assignee,
    milestone: _milestone,
    limit: _limit,
    fromAuthors: _fromAuthors,
    githubApi: _githubApi,
    land: _land,
    stack: _stack,
    githubRepo: _githubRepo,
    reportUrl: _reportUrl,
    ...rest
  } = options;
  if (resolveConflicts === true && rest.verify === undefined)
    throw refuse(
      '--resolve-conflicts needs --verify: a resolved merge lands only when the verify command passes on it',
    );
  if (repo === undefined)
    throw refuse(
      'ralph submit --batch needs --repo <git url>: the repository every worker clones and pushes to',
    );
  const problem = repoUrlProblem(repo);
  if (problem !== null)
    throw refuse(`ralph submit --repo ${JSON.stringify(maskUrlCredentials(repo))} is refused: ${problem}`);
  const pulls = await pullsOf(options, repo);
  const tasks = await readTasks(options);
  const verifyTimeoutMs =
    rest.verifyTimeout === undefined
      ? DEFAULT_VERIFY_TIMEOUT_MS
      : parseDuration(rest.verifyTimeout, '--verify-timeout');
  // Each task as one submission: refused here, before anything is queued, as `ralph submit` refuses one run.
  const inputs = tasks.map((task) => {
    const own = { ...taskOptions({ options: rest }, task), cwd: tmpdir() };
    const input = submissionOf(task.objective, own);
    if (task.maxRounds !== undefined) input.maxRounds = task.maxRounds;
    const verify = own.verify ?? null;
    if (verify !== null) parseVerifyCommand(verify);
    return { task, input, verify };
  });
  const batchId = newBatchId();
  const ref = await startRefOf(repo, into);
  const target = into ?? sessionBranch(batchId);
  // The start commit, tagged on the remote for `ralph batch --rollback <id> --repo URL`.
  const base = await startRemoteSession(repo, batchId, ref, target).catch((error: unknown) => {
    throw refuse(
      `ralph submit --repo ${repo}: cannot tag the batch's start commit there: ${errorText(error)}`,
    );
  });
  const budget = batchBudgetOf(rest);
  return inputs.map(({ task, input, verify }) => ({
    ...input,
    batch: {
      ...pulls,
      ...(budget === undefined ? {} : { budget }),
      ...(resolveConflicts === true ? { resolveConflicts } : {}),
      batchId,
      taskId: task.id,
      repo,
      target,
      branch: taskBranch(batchId, task.id),
      base,
      after: task.after,
      verify,
      verifyTimeoutMs,
    },
  }));
}

/**
 * `ralph submit --batch TASKS --repo URL` (or `--batch --from-github OWNER/REPO --label NAME`): enqueues the batch's
 * tasks and prints the batch's id on stdout.
 */
export async function submitBatchCommand(
  objective: string | undefined,
  options: SubmitBatchOptions,
): Promise<number> {
  let submission: FleetBatchSubmission;
  try {
    if (options.batch === undefined && options.fromGithub === undefined) {
      // Not a batch: a GitHub filter or --trust-tasks here would be ignored, or sent to a worker as an agent option.
      assertNoGitHubFilter(options, 'ralph submit');
      if (options.trustTasks === true)
        throw refuse('ralph submit --trust-tasks is for --batch: it trusts the commands a tasks file names');
      const pull = PULL_KEYS.find((key) => options[key] !== undefined);
      if (pull !== undefined) throw refuse(`ralph submit ${PULL_FLAGS[pull]} is for --batch`);
    }
    if (objective !== undefined)
      throw refuse(
        'ralph submit --batch takes its objectives from the tasks file (or the issues of --from-github), not as an argument',
      );
    submission = await batchSubmissionOf(options);
  } catch (error) {
    return reportFleetFailure(error);
  }
  const first = submission[0]?.batch;
  return withFleet(
    options,
    async (fleet) => {
      await fleet.submitBatch(submission);
      process.stdout.write(`${first?.batchId}\n`);
      process.stderr.write(
        first?.land === 'pr'
          ? `ralph submit: batch ${first.batchId}: ${submission.length} task(s) opening pull requests into ${first.target} of ${first.github?.owner}/${first.github?.repo}\n`
          : `ralph submit: batch ${first?.batchId}: ${submission.length} task(s) landing on ${first?.target} of ${first?.repo}\n`,
      );
      if (!(await anyWorkerLive(fleet))) process.stderr.write(`ralph submit: ${NO_LIVE_WORKER}\n`);
      return 0;
    },
    { create: true },
  );
}
