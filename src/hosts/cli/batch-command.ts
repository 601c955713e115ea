import { resolve } from 'node:path';
import { checkBatch, refuse } from '../../batch/batch-checks.js';
import { type BatchRun, type BatchRunHooks, runCheckedBatch } from '../../batch/batch-run.js';
import { taskOptions } from '../../batch/loops.js';
import { landSessionAsPulls, tasksStillToPull } from '../../batch/pulls.js';
import { assertBatchSandbox } from '../../batch/sandbox.js';
import type { BatchOutput } from '../../machines/batch.machine.js';
import type { TaskStatus } from '../../machines/batch-types.js';
import type { Notifier } from '../../notify/notifier.js';
import { GitError } from '../../workspace/git-command.js';
import { SessionError, taskBranch } from '../../workspace/git-session.js';
import { cleanIfAsked } from './batch-clean.js';
import { githubForPulls, readTasks, rollbackCommand } from './batch-input.js';
import { batchLandMode, type LandMode } from './batch-land-mode.js';
import { landCommandLine, resumeCommandLine } from './batch-next-steps.js';
import type { BatchOptions, ConnectGitHub } from './batch-options.js';
import { exitCodeOf, landHint, type NextSteps, statusLine, summary } from './batch-output.js';
import { createBatchProgress } from './batch-progress.js';
import { batchRoundCapNote } from './cli-texts.js';
import { EXIT } from './exit-codes.js';
import { notifierFor, notifyTaskNeedsReview } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { progressOptionsFor } from './progress.js';
import { trapBatchInterrupts } from './signals.js';

export { DEFAULT_PARALLEL } from '../../batch/batch-checks.js';

/** Statuses a task's change to goes unsaid here: a start, a loop going on, a question (said by its loop). */
const QUIET: ReadonlySet<TaskStatus> = new Set(['waiting', 'running', 'awaiting-answer']);

/** A batch whose tasks all passed still did not do its work when a pull request of theirs could not be opened. */
function pullsExitCode(code: number, output: BatchOutput, pulls: Map<string, unknown> | null): number {
  if (pulls === null || code !== EXIT.complete) return code;
  return output.tasks.every((task) => pulls.has(task.id)) ? code : EXIT.failed;
}

/**
 * What `ralph batch` says when a task's status changes: its status line (a start, a loop going on or a question go
 * unsaid here), and for one that needs review how to land it once fixed, and the notification that says so.
 */
function sayTaskChange(
  say: (text: string) => void,
  notifier: Notifier,
  options: BatchOptions,
  asPulls: boolean,
): NonNullable<BatchRunHooks['onTaskChange']> {
  return (task, { batchId, target, recordingPath }) => {
    const line = statusLine(task, target, asPulls);
    // A task that asks says its question itself, with its run id (batch/answers.ts).
    if (!QUIET.has(task.status)) say(`${task.id}: ${line}`);
    if (task.status !== 'needs-review') return;
    // Landed as pull requests, the fix goes on its draft pull request's branch, not through --land <batch-id>.
    if (!asPulls)
      say(
        `${task.id}: ${landHint(taskBranch(batchId, task.id), landCommandLine(batchId, task.id, options.cwd))}`,
      );
    notifyTaskNeedsReview(notifier, { batchId, taskId: task.id, line, recording: recordingPath });
  };
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
    landMode = batchLandMode(options);
  } catch (error) {
    return printFailure(error, false);
  }
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
          onTaskChange: sayTaskChange(say, notifier, options, github !== null),
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
        : await landSessionAsPulls(
            github,
            session,
            { stack: landMode.kind === 'pr' && landMode.stack, reportUrl: options.reportUrl ?? null },
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
