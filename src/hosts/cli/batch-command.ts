import { relative, resolve } from 'node:path';
import { checkBatch, refuse } from '../../batch/batch-checks.js';
import { type BatchRun, runCheckedBatch } from '../../batch/batch-run.js';
import { taskOptions } from '../../batch/loops.js';
import { recordedTasks } from '../../batch/recorded-tasks.js';
import { rollbackBatchTarget } from '../../batch/rollback.js';
import { assertBatchSandbox } from '../../batch/sandbox.js';
import { readTasksFile } from '../../batch/tasks-file.js';
import { tasksAsTrusted } from '../../batch/tasks-trust.js';
import type { BatchTask } from '../../contract/batch-tasks.js';
import { tasksFileAndGitHub, trustTasksWithGitHub } from '../../contract/github-task-messages.js';
import { isPlainHttpUrl } from '../../contract/plain-http-url.js';
import type { LandingDeps } from '../../github/pull-landing.js';
import type { BatchOutput } from '../../machines/batch.machine.js';
import type { TaskStatus } from '../../machines/batch-types.js';
import { GitError, gitLine } from '../../workspace/git-command.js';
import { SessionError, taskBranch } from '../../workspace/git-session.js';
import { cleanIfAsked } from './batch-clean.js';
import { assertNoGitHubFilter, readGitHubTasks } from './batch-github-tasks.js';
import { LAND_AS_PULLS, type LandMode, landModeOf } from './batch-land-mode.js';
import { landCommandLine, resumeCommandLine } from './batch-next-steps.js';
import type { BatchOptions } from './batch-options.js';
import { exitCodeOf, landHint, type NextSteps, statusLine, summary } from './batch-output.js';
import { createBatchProgress } from './batch-progress.js';
import { type ConnectGitHub, landBatchAsPulls, tasksStillToPull } from './batch-pulls.js';
import { batchRoundCapNote } from './cli-texts.js';
import { EXIT } from './exit-codes.js';
import { notifierFor, notifyTaskNeedsReview } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { progressOptionsFor } from './progress.js';
import { trapBatchInterrupts } from './signals.js';

export { DEFAULT_PARALLEL } from '../../batch/batch-checks.js';

/** Statuses a task's change to goes unsaid here: a start, a loop going on, a question (said by its loop). */
const QUIET: ReadonlySet<TaskStatus> = new Set(['waiting', 'running', 'awaiting-answer']);

/**
 * The tasks of the file (and its absolute path) as the command line lets them run, or a refusal naming the file and what is wrong with it
 * (a command it names without --trust-tasks among them). With `--from-github`, the tasks of the repository's issues
 * instead (no path: there is no file), which name no command of their own.
 */
async function readTasks(
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
async function rollbackCommand(batchId: string, cwd: string, repo: string | undefined): Promise<number> {
  const done = await rollbackBatchTarget(batchId, cwd, repo);
  process.stdout.write(
    done.from === done.to
      ? `${done.target} is already at batch ${batchId}'s start commit ${done.to.slice(0, 12)}: nothing to roll back\n`
      : `${done.target} rolled back from ${done.from.slice(0, 12)} to ${done.to.slice(0, 12)}\n`,
  );
  return EXIT.complete;
}

/** The GitHub a `--land pr` batch opens its pull requests on; refused without `--into` (a branch GitHub has). */
async function githubForPulls(
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

/** A batch whose tasks all passed still did not do its work when a pull request of theirs could not be opened. */
function pullsExitCode(code: number, output: BatchOutput, pulls: Map<string, unknown> | null): number {
  if (pulls === null || code !== EXIT.complete) return code;
  return output.tasks.every((task) => pulls.has(task.id)) ? code : EXIT.failed;
}

/**
 * `ralph batch TASKS`: runs every task of the file as its own Ralph loop in its own git worktree, at most
 * `--parallel` at once, and lands each completed one on the target through the merge queue. The user's working
 * tree is never read or written. Resolves with the exit code: 0 every task landed, 1 some did not (listed), 2
 * refused, 4 the batch's --max-time or --max-cost ran out, 130 cancelled. `args` are the arguments after `batch`, as
 * given: a cancelled batch's summary gives them back with `--resume`.
 */
export async function batchCommand(
  tasksFile: string | undefined,
  options: BatchOptions,
  args: readonly string[],
  connectGitHub?: ConnectGitHub,
): Promise<number> {
  let landMode: LandMode;
  try {
    landMode = landModeOf(options.land, options.stack);
  } catch (error) {
    return printFailure(error, false);
  }
  if (options.reportUrl !== undefined && landMode.kind !== 'pr')
    return printFailure(
      refuse('--report-url needs --land pr: the pull requests link the report there'),
      false,
    );
  if (options.reportUrl !== undefined && !isPlainHttpUrl(options.reportUrl))
    return printFailure(
      refuse(
        `--report-url must be an http(s) URL with no credential (got ${JSON.stringify(options.reportUrl)})`,
      ),
      false,
    );
  if (options.githubRepo !== undefined && landMode.kind !== 'pr')
    return printFailure(
      refuse('--github-repo needs --land pr: it names where the pull requests are opened'),
      false,
    );
  if (landMode.kind === 'fixed-task') {
    const { landCommand } = await import('./batch-land.js');
    return landCommand(landMode.batchId, tasksFile, options);
  }
  const progress = createBatchProgress(process.stderr, progressOptionsFor(process.stderr));
  const say = (text: string) => progress.line(text);
  let openNotifier: ReturnType<typeof notifierFor> | undefined;
  try {
    const cwd = resolve(options.cwd ?? '.');
    const cleaned = await cleanIfAsked(tasksFile, options);
    if (cleaned !== null) return cleaned;
    if (options.rollback !== undefined) return await rollbackCommand(options.rollback, cwd, options.repo);
    if (options.repo !== undefined) throw refuse('ralph batch --repo is for --rollback of a fleet batch');
    const { tasks: read, path: tasksPath } = await readTasks(tasksFile, options, say);
    const parallel = checkBatch(read, options, cwd);
    const github = landMode.kind === 'pr' ? await githubForPulls(connectGitHub, cwd, options, say) : null;
    // Tasks whose pull request a person decided on (or is deciding on) are not run again; a resumed batch runs the
    // tasks it recorded (its pull requests are opened only once it settles).
    const tasks =
      github === null || options.resume !== undefined
        ? read
        : await tasksStillToPull(github, read, (taskId, text) => say(`${taskId}: ${text}`));
    if (tasks.length === 0) {
      process.stdout.write(
        'every task has its pull request decided on or under review already: nothing to run\n',
      );
      return EXIT.complete;
    }
    await assertBatchSandbox(options);
    const notifier = notifierFor(options);
    openNotifier = notifier;
    const interrupt = new AbortController();
    const release = trapBatchInterrupts(() => {
      say('cancelling every loop and the merge queue (Ctrl-C again to force)');
      interrupt.abort();
    });
    let run: BatchRun;
    try {
      run = await runCheckedBatch(
        tasks,
        { ...options, parallel, ...(tasksPath === undefined ? {} : { tasksFile: tasksPath }) },
        cwd,
        {
          say,
          signal: interrupt.signal,
          notifier,
          asPulls: github !== null,
          onOpened: (session) => {
            const capNote = batchRoundCapNote(
              tasks
                .filter((task) => !session.settled.has(task.id))
                .map((task) => ({
                  agent: taskOptions({ options }, task).agent,
                  maxRounds: task.maxRounds ?? options.maxRounds,
                })),
            );
            if (capNote !== undefined) say(capNote);
          },
          onTaskChange: (task, { batchId, target, recordingPath }) => {
            const line = statusLine(task, target, github !== null);
            // A task that asks says its question itself, with its run id (batch-answers.ts).
            if (!QUIET.has(task.status)) say(`${task.id}: ${line}`);
            if (task.status !== 'needs-review') return;
            // Landed as pull requests, the fix goes on its draft pull request's branch, not through --land <batch-id>.
            if (github === null)
              say(
                `${task.id}: ${landHint(taskBranch(batchId, task.id), landCommandLine(batchId, task.id, options.cwd))}`,
              );
            notifyTaskNeedsReview(notifier, { batchId, taskId: task.id, line, recording: recordingPath });
          },
          onTasks: (entries, spentUsd) => progress.update(entries, spentUsd),
        },
      );
    } finally {
      release();
      progress.stop();
    }
    const { output, session, kept, workOnBranch } = run;
    const { batchId, folder, recordingPath } = session;
    const pulls =
      github === null
        ? null
        : await landBatchAsPulls(
            github,
            {
              recordingPath,
              target: session.target,
              stack: landMode.kind === 'pr' && landMode.stack,
              reportUrl: options.reportUrl ?? null,
              recording: relative(session.repo, recordingPath),
              hasChanges: async (branch) =>
                (await gitLine(session.repo, [
                  'rev-list',
                  '--count',
                  `${session.start}..refs/heads/${branch}`,
                ])) !== '0',
              headOf: (branch) =>
                gitLine(session.repo, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`]),
            },
            (taskId, text) => say(`${taskId}: ${text}`),
          );
    const next: NextSteps = {
      land: (taskId) => landCommandLine(batchId, taskId, options.cwd),
      resume: output.cancelReason === null ? null : resumeCommandLine(args, recordingPath),
      ...(pulls === null
        ? {}
        : { pulls: new Map([...pulls].map(([taskId, landed]) => [taskId, landed.pull])) }),
    };
    process.stdout.write(summary(output, folder, batchId, session.target, kept, workOnBranch, next));
    process.stdout.write(`recording ${recordingPath}; its page: ralph report ${recordingPath}\n`);
    const code = pullsExitCode(exitCodeOf(output, output.cancelReason), output, pulls);
    await run.tracing?.end(code !== EXIT.complete);
    // The tasks' notifications get a short while to arrive, and no longer.
    await notifier.close();
    return code;
  } catch (error) {
    progress.stop();
    // A batch that fails after it began notifying still gives its notifications their short while, and no longer.
    await openNotifier?.close();
    if (error instanceof SessionError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    if (error instanceof GitError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    return printFailure(error, false);
  }
}
