import { resolve } from 'node:path';
import { refuse } from '../../batch/batch-checks.js';
import { recordedTasks } from '../../batch/recorded-tasks.js';
import { rollbackBatchTarget } from '../../batch/rollback.js';
import { readTasksFile } from '../../batch/tasks-file.js';
import { tasksAsTrusted } from '../../batch/tasks-trust.js';
import type { BatchTask } from '../../contract/batch-tasks.js';
import { tasksFileAndGitHub, trustTasksWithGitHub } from '../../contract/github-task-messages.js';
import type { LandingDeps } from '../../github/pull-landing.js';
import { assertNoGitHubFilter, readGitHubTasks } from './batch-github-tasks.js';
import { LAND_AS_PULLS } from './batch-land-mode.js';
import type { BatchOptions, ConnectGitHub } from './batch-options.js';
import { EXIT } from './exit-codes.js';

// What `ralph batch` is given, read before a batch starts: its tasks (a file, or GitHub's issues), the GitHub its pull
// requests go to, and `--rollback`, which runs no batch.

/**
 * The tasks of the file (and its absolute path) as the command line lets them run, or a refusal naming the file and what is wrong with it
 * (a command it names without --trust-tasks among them). With `--from-github`, the tasks of the repository's issues
 * instead (no path: there is no file), which name no command of their own.
 */
export async function readTasks(
  file: string | undefined,
  options: BatchOptions,
  say: (line: string) => void,
): Promise<{ tasks: BatchTask[]; path?: string }> {
  const { fromGithub } = options;
  if (fromGithub !== undefined) {
    if (file !== undefined) throw refuse(tasksFileAndGitHub());
    if (options.trustTasks === true) throw refuse(trustTasksWithGitHub('ralph batch'));
    // Resumed, the batch goes on with the tasks it took when it started: issues edited or closed since change nothing.
    if (options.resume !== undefined) {
      say(
        `resuming with the tasks the batch took from ${fromGithub}'s issues when it started (not read again)`,
      );
      return { tasks: await recordedTasks(options.resume) };
    }
    // Loaded only here: a batch from a tasks file never loads the GitHub client.
    const { connectGitHub } = await import('./github-connect.js');
    return { tasks: await readGitHubTasks({ ...options, fromGithub }, say, connectGitHub) };
  }
  assertNoGitHubFilter(options, 'ralph batch', options.land === LAND_AS_PULLS);
  if (file === undefined)
    throw refuse('ralph batch needs a tasks file: a Markdown checklist, or a JSON or YAML list of tasks');
  const use = { command: 'ralph batch', file, nothing: 'nothing was started' };
  return {
    tasks: await tasksAsTrusted(await readTasksFile(file, use.command), options, use, say),
    path: resolve(file),
  };
}

/**
 * `ralph batch --rollback <id>`: the batch's target back on its starting commit, in the repository `cwd` is in, or
 * with `--repo URL` on that remote (a fleet batch's).
 */
export async function rollbackCommand(
  batchId: string,
  cwd: string,
  repo: string | undefined,
): Promise<number> {
  const done = await rollbackBatchTarget(batchId, cwd, repo);
  process.stdout.write(
    done.from === done.to
      ? `${done.target} is already at batch ${batchId}'s start commit ${done.to.slice(0, 12)}: nothing to roll back\n`
      : `${done.target} rolled back from ${done.from.slice(0, 12)} to ${done.to.slice(0, 12)}\n`,
  );
  return EXIT.complete;
}

/** The GitHub a `--land pr` batch opens its pull requests on; refused without `--into` (a branch GitHub has). */
export async function githubForPulls(
  connect: ConnectGitHub | undefined,
  cwd: string,
  options: BatchOptions,
  say: (line: string) => void,
): Promise<LandingDeps> {
  if (options.into === undefined)
    throw refuse('--land pr needs --into <branch>: the branch on GitHub the pull requests go into');
  if (connect === undefined) {
    // The CLI's own: Octokit with the host's token, loaded only for a batch that opens pull requests.
    const { connectPulls } = await import('./github-connect.js');
    return connectPulls(cwd, options, say);
  }
  return connect(cwd, options, say);
}
