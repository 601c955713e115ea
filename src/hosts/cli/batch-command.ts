import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  bringOntoTarget,
  landOnTarget,
  type MergeSetup,
  scratchPath,
  taskWorktree,
  verifyCombinedOwned,
} from '../../actors/merge-steps.js';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import type { BatchTask } from '../../contract/batch-tasks.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../../contract/config.js';
import { parseDuration } from '../../contract/duration.js';
import { RalphError } from '../../contract/errors.js';
import { type BatchOutput, batchMachine } from '../../machines/batch.machine.js';
import type {
  BringOutcome,
  CombinedVerify,
  ConflictItem,
  MergeItem,
  ResolveOutcome,
  TaskEntry,
} from '../../machines/batch-types.js';
import { mergeQueueMachine } from '../../machines/merge-queue.machine.js';
import { killLiveGroups } from '../../process/live-groups.js';
import { GitError } from '../../workspace/git-command.js';
import { repoUrlProblem } from '../../workspace/git-remote.js';
import { rollbackRemoteSession } from '../../workspace/git-remote-session.js';
import { rollbackSession, SessionError, taskBranch } from '../../workspace/git-session.js';
import { pruneWorktrees, removeWorktree } from '../../workspace/git-worktree.js';
import type { AgentOptions } from './agent-options.js';
import { LandingLog } from './batch-landings.js';
import { type LoopSetup, runTaskActor, taskOptions } from './batch-loops.js';
import { openBatch } from './batch-open.js';
import { exitCodeOf, statusLine, summary } from './batch-output.js';
import { createBatchProgress } from './batch-progress.js';
import { resolveConflicts } from './batch-resolver.js';
import { pauseAfterLandForTests } from './batch-test-hooks.js';
import {
  type BatchTracing,
  type StepOutcome,
  startBatchTracing,
  verifySpanOutcome,
} from './batch-tracing.js';
import { assertAgentStartable, providerFor } from './cli-tool.js';
import { EXIT } from './exit-codes.js';
import { type GuardRailOptions, guardRailConfig } from './guard-rail-options.js';
import { type NotifyOptions, notifierFor, notifyTaskNeedsReview } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { progressOptionsFor } from './progress.js';
import { trapInterrupts } from './signals.js';
import { readTasksFile } from './tasks-file.js';

/** The options of `ralph batch`. */
export interface BatchOptions extends AgentOptions, GuardRailOptions, NotifyOptions {
  maxRounds?: string;
  parallel?: string;
  into?: string;
  rollback?: string;
  /** With `rollback`: the remote of a fleet batch (`ralph submit --batch --repo URL`). */
  repo?: string;
  resolveConflicts?: boolean;
  resume?: string;
}

/** How many loops a batch runs at once unless told otherwise, and the most it takes. */
export const DEFAULT_PARALLEL = 2;
const MAX_PARALLEL = 64;

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** `--parallel`: a whole number from 1 to 64. */
function parallelOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PARALLEL;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_PARALLEL)
    throw refuse(`--parallel must be a whole number from 1 to ${MAX_PARALLEL} (got ${JSON.stringify(text)})`);
  return value;
}

/** `--grace-ms` for the merge queue's verify command: a whole number of milliseconds from 0 (default 5000). */
function graceOf(text: string | undefined): number {
  if (text === undefined) return 5_000;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw refuse(`--grace-ms must be a whole number of milliseconds (got ${JSON.stringify(text)})`);
  return value;
}

/** The tasks of the file and its absolute path, or a refusal naming the file and what is wrong with it. */
async function readTasks(file: string | undefined): Promise<{ tasks: BatchTask[]; path: string }> {
  if (file === undefined)
    throw refuse('ralph batch needs a tasks file: a Markdown checklist, or a JSON or YAML list of tasks');
  return { tasks: await readTasksFile(file, 'ralph batch'), path: resolve(file) };
}

/** Checks every task's agent and guard rails before anything starts: a refusal here starts no loop. */
function checkTaskOptions(tasks: BatchTask[], options: BatchOptions, cwd: string): void {
  for (const task of tasks) {
    const own = taskOptions({ options }, task);
    const provider = providerFor(own);
    guardRailConfig(own);
    assertAgentStartable(provider, own, cwd);
  }
}

/** A new batch id: the time it started and a random part, e.g. `20261201-1522-a1b2c3`. */
function newBatchId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * `ralph batch --rollback <id>`: the batch's target back on its starting commit, in the repository `cwd` is in, or
 * with `--repo URL` on that remote (a fleet batch's).
 */
async function rollbackCommand(batchId: string, cwd: string, repo: string | undefined): Promise<number> {
  if (repo !== undefined) {
    const problem = repoUrlProblem(repo);
    if (problem !== null) throw refuse(`ralph batch --repo ${JSON.stringify(repo)} is refused: ${problem}`);
  }
  const done =
    repo === undefined ? await rollbackSession(cwd, batchId) : await rollbackRemoteSession(repo, batchId);
  process.stdout.write(
    done.from === done.to
      ? `${done.target} is already at batch ${batchId}'s start commit ${done.to.slice(0, 12)}: nothing to roll back\n`
      : `${done.target} rolled back from ${done.from.slice(0, 12)} to ${done.to.slice(0, 12)}\n`,
  );
  return EXIT.complete;
}

/**
 * `ralph batch TASKS`: runs every task of the file as its own Ralph loop in its own git worktree, at most
 * `--parallel` at once, and lands each completed one on the target through the merge queue. The user's working
 * tree is never read or written. Resolves with the exit code: 0 every task landed, 1 some did not (listed), 2
 * refused, 4 the batch's --max-time or --max-cost ran out, 130 cancelled.
 */
export async function batchCommand(tasksFile: string | undefined, options: BatchOptions): Promise<number> {
  const progress = createBatchProgress(process.stderr, progressOptionsFor(process.stderr));
  const say = (text: string) => progress.line(text);
  let tracing: BatchTracing | undefined;
  let openNotifier: ReturnType<typeof notifierFor> | undefined;
  try {
    const cwd = resolve(options.cwd ?? '.');
    if (options.rollback !== undefined) return await rollbackCommand(options.rollback, cwd, options.repo);
    if (options.repo !== undefined) throw refuse('ralph batch --repo is for --rollback of a fleet batch');
    const { tasks, path: tasksPath } = await readTasks(tasksFile);
    const parallel = parallelOf(options.parallel);
    if (options.resolveConflicts === true && options.verify === undefined)
      throw refuse(
        '--resolve-conflicts needs --verify: a resolved merge lands only when the verify command passes on it',
      );
    checkTaskOptions(tasks, options, cwd);
    const notifier = notifierFor(options);
    openNotifier = notifier;
    const batchTimeMs = options.maxTime === undefined ? null : parseDuration(options.maxTime, '--max-time');
    const batchCostUsd = guardRailConfig(options).maxCostUsd ?? null;
    const verifyTimeoutMs =
      options.verifyTimeout === undefined
        ? DEFAULT_VERIFY_TIMEOUT_MS
        : parseDuration(options.verifyTimeout, '--verify-timeout');
    const graceMs = graceOf(options.graceMs);

    const session = await openBatch(
      tasks,
      {
        parallel,
        batchId: newBatchId(),
        tasksFile: tasksPath,
        ...(options.into === undefined ? {} : { into: options.into }),
        ...(options.resume === undefined ? {} : { resume: options.resume }),
      },
      cwd,
      say,
    );
    const { batchId, folder, recorder, recordingPath } = session;
    tracing = await startBatchTracing(batchId, say);
    const traced = tracing;
    /** One merge step, in a span of its own when the batch is traced. */
    const step = <T>(
      name: string,
      taskId: string,
      body: () => Promise<T>,
      outcome?: (result: T) => StepOutcome,
    ): Promise<T> => (traced === undefined ? body() : traced.mergeStep(name, taskId, body, outcome));
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const verifyOf = (taskId: string): readonly string[] | null => {
      const task = byId.get(taskId);
      const text = task?.verify ?? options.verify;
      return text === undefined ? null : parseVerifyCommand(text);
    };
    const merge: MergeSetup = {
      batchId,
      repo: session.repo,
      target: session.target,
      folder,
      verifyOf,
      verifyTimeoutMs,
      terminationGraceMs: graceMs,
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
      options,
      say: (taskId, text) => say(`${taskId}: ${text}`),
      ...(traced === undefined ? {} : { tracing: traced }),
      onUsage: (_taskId, usage) => {
        if (usage.costUsd !== undefined) spentUsd = (spentUsd ?? 0) + usage.costUsd;
        if (batchCostUsd !== null && spentUsd !== null && spentUsd >= batchCostUsd)
          actor.send({ type: 'CANCEL', reason: 'cost' });
      },
    };
    const loops = runTaskActor(loopSetup);
    const landings = new LandingLog();
    const queue = mergeQueueMachine.provide({
      actors: {
        bringOntoTarget: fromPromise<BringOutcome, MergeItem>(({ input }) =>
          step('rebase', input.taskId, () => bringOntoTarget(merge, input)),
        ),
        resolveConflicts: fromPromise<ResolveOutcome, ConflictItem>(({ input, signal }) =>
          step('resolve', input.taskId, () => resolveConflicts(merge, loopSetup, input, signal)),
        ),
        verifyCombined: fromPromise<CombinedVerify, MergeItem>(({ input, signal }) =>
          step('verify', input.taskId, () => verifyCombinedOwned(merge, input, signal), verifySpanOutcome),
        ),
        landOnTarget: fromPromise<void, MergeItem & { head: string; onto: string }>(async ({ input }) => {
          const landing = step('land', input.taskId, () => landOnTarget(merge, input));
          landings.track(input.taskId, input.head, landing);
          await landing;
          await pauseAfterLandForTests(input.taskId);
        }),
      },
    });
    const actor = createActor(batchMachine.provide({ actors: { runTask: loops, mergeQueue: queue } }), {
      input: {
        tasks: tasks.map((task) => ({ id: task.id, after: task.after, ...session.settled.get(task.id) })),
        parallel,
        verifies: tasks.some((task) => verifyOf(task.id) !== null),
        resolves: options.resolveConflicts === true,
        branches: Object.fromEntries(tasks.map((task) => [task.id, taskBranch(batchId, task.id)])),
      },
    });
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
        const line = statusLine(task, session.target);
        if (task.status !== 'waiting' && task.status !== 'running') say(`${task.id}: ${line}`);
        if (task.status === 'needs-review')
          notifyTaskNeedsReview(notifier, { batchId, taskId: task.id, line, recording: recordingPath });
      }
      progress.update(snapshot.context.tasks, spentUsd);
    });
    const release = trapInterrupts({
      cancel() {
        say('cancelling every loop and the merge queue (Ctrl-C again to force)');
        actor.send({ type: 'CANCEL', reason: 'interrupted' });
      },
      force() {
        killLiveGroups();
        process.exit(EXIT.cancelled);
      },
    });
    const timer =
      batchTimeMs === null
        ? undefined
        : setTimeout(() => actor.send({ type: 'CANCEL', reason: 'time' }), batchTimeMs);
    let output: BatchOutput;
    try {
      actor.start();
      output = await toPromise(actor);
    } finally {
      clearTimeout(timer);
      release();
      progress.stop();
    }
    // A landing a cancel cut short in the machine may have moved the target all the same: the target says.
    for (const taskId of await landings.landedAfterAll(output, session.repo, session.target)) {
      recordTask({ id: taskId, status: 'landed', note: null, conflicts: [] });
      say(`${taskId}: landed on ${session.target} (the target had moved when the batch was cancelled)`);
    }
    recorder.settled(output.cancelReason);
    recorder.close();
    // Landed tasks' worktrees went as they landed; cancelled ones go now (their work is committed on their branch).
    const kept = new Set<string>();
    const workOnBranch = new Set<string>();
    for (const task of output.tasks) {
      const tree = taskWorktree(folder, task.id);
      if (!existsSync(tree)) continue;
      if (task.status === 'needs-review' || task.status === 'failed') kept.add(task.id);
      else {
        await removeWorktree(session.repo, tree);
        if (task.status === 'cancelled') workOnBranch.add(task.id);
      }
    }
    if (existsSync(scratchPath(merge))) await removeWorktree(session.repo, scratchPath(merge));
    await pruneWorktrees(session.repo);
    if (output.cancelReason === 'time') say(`the batch's --max-time ran out`);
    if (output.cancelReason === 'cost')
      say(`the batch's --max-cost was reached ($${(spentUsd ?? 0).toFixed(2)})`);
    process.stdout.write(summary(output, folder, batchId, session.target, kept, workOnBranch));
    process.stdout.write(`recording ${recordingPath}; its page: ralph report ${recordingPath}\n`);
    const code = exitCodeOf(output, output.cancelReason);
    await traced?.end(code !== EXIT.complete);
    // The tasks' notifications get a short while to arrive, and no longer.
    await notifier.close();
    return code;
  } catch (error) {
    progress.stop();
    await tracing?.end(true);
    // A batch that fails after it began notifying still gives its notifications their short while, and no longer.
    await openNotifier?.close();
    if (error instanceof SessionError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    if (error instanceof GitError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    return printFailure(error, false);
  }
}
