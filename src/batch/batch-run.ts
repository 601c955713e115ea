import { createActor, toPromise } from 'xstate';
import { landOnOwnBranch, type MergeSetup } from '../actors/merge-steps.js';
import { parseVerifyCommand } from '../actors/verify-command.js';
import type { BatchTask } from '../contract/batch-tasks.js';
import { type BatchOutput, batchMachine } from '../machines/batch.machine.js';
import type { TaskEntry } from '../machines/batch-types.js';
import type { Notifier } from '../notify/notifier.js';
import { GitError } from '../workspace/git-command.js';
import { SessionError, taskBranch } from '../workspace/git-session.js';
import { type BatchRunOptions, batchLimits, refuse } from './batch-checks.js';
import { newBatchId } from './id.js';
import { LandingLog } from './landings.js';
import { type LoopSetup, runTaskActor } from './loops.js';
import { localMergeQueue } from './merge-queue.js';
import { type OpenBatch, openBatch } from './open.js';
import { resolveConflicts } from './resolver.js';
import { batchHiddenPaths, mergeSandbox } from './sandbox.js';
import { removeWorktrees } from './settled-worktrees.js';
import { type BatchTracing, startBatchTracing } from './tracing.js';

/** A checked batch's options: `parallel` as checkBatch gave it, and the tasks file's path (none: from code or GitHub). */
export type CheckedBatchOptions = Omit<BatchRunOptions, 'parallel'> & {
  parallel: number;
  tasksFile?: string;
};

/** What a batch is run with besides its tasks and options: where it says what happens, and who may cancel it. */
export interface BatchRunHooks {
  /** One line of the batch's progress. */
  say(text: string): void;
  /** Aborted, every loop and the merge queue are cancelled (reason `interrupted`); the batch settles once they stopped. */
  signal?: AbortSignal;
  /** The batch is open (new or resumed), before any loop starts. */
  onOpened?(session: OpenBatch): void;
  /** A task's status changed (recorded already); `session` is the open batch. */
  onTaskChange?(task: TaskEntry, session: OpenBatch): void;
  /** Every task as it is now, and what their loops spent (null while no agent said). */
  onTasks?(tasks: readonly TaskEntry[], spentUsd: number | null): void;
  /** With `--ask --notify`: where a task's question goes. */
  notifier?: Notifier;
  /** `--land pr`: a task's work stays on its branch (a task after it starts there), its pull request opened later. */
  asPulls?: boolean;
}

/** A settled batch: how each task ended, where its work is, what was spent. */
export interface BatchRun {
  output: BatchOutput;
  session: OpenBatch;
  spentUsd: number | null;
  /** Tasks whose worktree is kept for a person (needs review, failed). */
  kept: Set<string>;
  /** Cancelled tasks whose worktree went, their work committed on their branch. */
  workOnBranch: Set<string>;
  /** The commit a landed task's landing moved the target to. */
  commitOf(taskId: string): string | undefined;
  /** The batch's trace, when the environment asks for traces: the caller ends it once it knows the exit. */
  tracing: BatchTracing | undefined;
}

/**
 * Runs a checked batch (batch-checks.ts) to its end: opens it (or resumes it), runs every task's loop in its own
 * worktree at most `parallel` at once, lands each completed one through the merge queue, records every change, and
 * once everything stopped removes the worktrees nobody needs. Git and session failures are refused in the batch's
 * words.
 */
export async function runCheckedBatch(
  tasks: readonly BatchTask[],
  options: CheckedBatchOptions,
  cwd: string,
  hooks: BatchRunHooks,
): Promise<BatchRun> {
  let tracing: BatchTracing | undefined;
  try {
    return await runOpened(tasks, options, cwd, hooks, (started) => {
      tracing = started;
    });
  } catch (error) {
    await tracing?.end(true);
    if (error instanceof SessionError || error instanceof GitError)
      throw refuse(`ralph batch: ${error.message}`);
    throw error;
  }
}

/** runCheckedBatch's work: `traceStarted` learns the batch's trace, to end it when the batch fails. */
async function runOpened(
  tasks: readonly BatchTask[],
  options: CheckedBatchOptions,
  cwd: string,
  hooks: BatchRunHooks,
  traceStarted: (tracing: BatchTracing | undefined) => void,
): Promise<BatchRun> {
  const { say, notifier } = hooks;
  const asPulls = hooks.asPulls === true;
  const { batchTimeMs, batchCostUsd, verifyTimeoutMs, graceMs, waitForAnswersMs } = batchLimits(options);
  const { parallel } = options;
  const session = await openBatch(
    tasks,
    {
      parallel,
      batchId: newBatchId(),
      ...(options.tasksFile === undefined ? {} : { tasksFile: options.tasksFile }),
      ...(options.into === undefined ? {} : { into: options.into }),
      asPulls,
      ...(options.resume === undefined ? {} : { resume: options.resume }),
      verifyText: (task) => task.verify ?? options.verify ?? null,
      verifyTimeoutMs,
    },
    cwd,
    say,
  );
  const { batchId, folder, recorder } = session;
  hooks.onOpened?.(session);
  const traced = await startBatchTracing(batchId, say);
  traceStarted(traced);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const verifyOf = (taskId: string): readonly string[] | null => {
    const text = byId.get(taskId)?.verify ?? options.verify;
    return text === undefined ? null : parseVerifyCommand(text);
  };
  const hide = await batchHiddenPaths(options, session.repo);
  const merge: MergeSetup = {
    batchId,
    repo: session.repo,
    target: session.target,
    folder,
    verifyOf,
    verifyTimeoutMs,
    terminationGraceMs: graceMs,
    ...mergeSandbox(options, hide),
  };
  /** What the tasks' loops said they spent, summed as each ends; null while none said. */
  let spentUsd: number | null = null;
  const loopSetup: LoopSetup = {
    batchId,
    repo: session.repo,
    target: session.target,
    start: session.start,
    folder,
    resuming: session.resumed,
    tasks: byId,
    branchOf: (taskId) => taskBranch(batchId, taskId),
    // Landed as pull requests, a task's work stays on its branch: one that comes after it starts there.
    startAfterOnBranch: asPulls,
    options,
    hide,
    say: (taskId, text) => say(`${taskId}: ${text}`),
    ...(traced === undefined ? {} : { tracing: traced }),
    ...(waitForAnswersMs === undefined ? {} : { waitForAnswersMs }),
    ...(waitForAnswersMs === undefined || notifier === undefined || !notifier.enabled ? {} : { notifier }),
    onUsage: (_taskId, usage) => {
      if (usage.costUsd !== undefined) spentUsd = (spentUsd ?? 0) + usage.costUsd;
      if (batchCostUsd !== null && spentUsd !== null && spentUsd >= batchCostUsd)
        actor.send({ type: 'CANCEL', reason: 'cost' });
    },
  };
  const landings = new LandingLog();
  const queue = localMergeQueue(merge, landings, {
    ...(traced === undefined ? {} : { step: traced.mergeStep.bind(traced) }),
    resolveConflicts: (input, signal) => resolveConflicts(merge, loopSetup, input, signal),
    ...(asPulls ? { land: landOnOwnBranch } : {}),
  });
  const actor = createActor(
    batchMachine.provide({ actors: { runTask: runTaskActor(loopSetup), mergeQueue: queue } }),
    {
      input: {
        tasks: tasks.map((task) => ({ id: task.id, after: task.after, ...session.settled.get(task.id) })),
        parallel,
        verifies: tasks.some((task) => verifyOf(task.id) !== null),
        resolves: options.resolveConflicts === true,
        branches: Object.fromEntries(tasks.map((task) => [task.id, taskBranch(batchId, task.id)])),
      },
    },
  );
  /** Records a task's new status; a landed task's with the commit its landing moved the target to. */
  const recordTask = ({
    id,
    status,
    note,
    conflicts,
  }: Pick<TaskEntry, 'id' | 'status' | 'note' | 'conflicts'>) => {
    const commit = status === 'landed' ? landings.headOf(id) : undefined;
    recorder.task({ id, status, note, conflicts, ...(commit === undefined ? {} : { commit }) });
  };
  // A resumed batch's settled tasks were said before: only what changes now is.
  const seen = new Map<string, string>([...session.settled].map(([id, task]) => [id, task.status]));
  actor.subscribe((snapshot) => {
    traced?.onTasks(snapshot.context.tasks);
    for (const task of snapshot.context.tasks) {
      if (seen.get(task.id) === task.status) continue;
      seen.set(task.id, task.status);
      recordTask(task);
      hooks.onTaskChange?.(task, session);
    }
    hooks.onTasks?.(snapshot.context.tasks, spentUsd);
  });
  const cancel = () => actor.send({ type: 'CANCEL', reason: 'interrupted' });
  const timer =
    batchTimeMs === null
      ? undefined
      : setTimeout(() => actor.send({ type: 'CANCEL', reason: 'time' }), batchTimeMs);
  let output: BatchOutput;
  try {
    actor.start();
    if (hooks.signal?.aborted === true) cancel();
    hooks.signal?.addEventListener('abort', cancel, { once: true });
    output = await toPromise(actor);
  } finally {
    clearTimeout(timer);
    hooks.signal?.removeEventListener('abort', cancel);
  }
  // A landing a cancel cut short in the machine may have moved the target all the same: the target says.
  for (const taskId of await landings.landedAfterAll(output, session.repo, session.target)) {
    recordTask({ id: taskId, status: 'landed', note: null, conflicts: [] });
    say(`${taskId}: landed on ${session.target} (the target had moved when the batch was cancelled)`);
  }
  recorder.settled(output.cancelReason);
  recorder.close();
  const { kept, workOnBranch } = await removeWorktrees(output, session, merge);
  if (output.cancelReason === 'time') say(`the batch's --max-time ran out`);
  if (output.cancelReason === 'cost')
    say(`the batch's --max-cost was reached ($${(spentUsd ?? 0).toFixed(2)})`);
  return {
    output,
    session,
    spentUsd,
    kept,
    workOnBranch,
    commitOf: (taskId) => landings.headOf(taskId),
    tracing: traced,
  };
}
