import { tmpdir } from 'node:os';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import { newBatchId } from '../../batch/id.js';
import { taskOptions } from '../../batch/loops.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../../contract/config.js';
import { parseDuration } from '../../contract/duration.js';
import { errorText } from '../../contract/error-text.js';
import { maskUrlCredentials } from '../../contract/url-credentials.js';
import type { BatchBudget } from '../../fleet/batch-budget.js';
import type { FleetBatchSubmission } from '../../fleet/batch-client.js';
import { lsRemote, repoUrlProblem } from '../../workspace/git-remote.js';
import { startRemoteSession } from '../../workspace/git-remote-session.js';
import { sessionBranch, taskBranch } from '../../workspace/git-session.js';
import { assertNoGitHubFilter } from './batch-github-tasks.js';
import { anyWorkerLive, NO_LIVE_WORKER, reportFleetFailure, withFleet } from './fleet-cli.js';
import { PULL_FLAGS, PULL_KEYS } from './github-task-options.js';
import { guardRailConfig } from './guard-rail-options.js';
import { refuse, type SubmitBatchOptions } from './submit-batch-options.js';
import { pullsOf } from './submit-batch-pulls.js';
import { readBatchTasks } from './submit-batch-tasks.js';
import { type SubmitOptions, submissionOf } from './submit-command.js';

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
  const tasks = await readBatchTasks(options);
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
