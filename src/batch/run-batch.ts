import { resolve } from 'node:path';
import { type BatchTask, checkTaskOrder, TasksFileError, tasksOfData } from '../contract/batch-tasks.js';
import { GitError } from '../workspace/git-command.js';
import { SessionError, taskBranch } from '../workspace/git-session.js';
import { type BatchRunOptions, checkBatch, refuse } from './batch-checks.js';
import { runCheckedBatch } from './batch-run.js';
import { recordedTasks } from './recorded-tasks.js';
import { type BatchRollback, rollbackBatchTarget } from './rollback.js';
import type {
  BatchOutcome,
  BatchRunCommon,
  BatchTaskInput,
  ResumeBatchOptions,
  RunBatchOptions,
} from './run-batch-types.js';
import { assertBatchSandbox } from './sandbox.js';
import { readTasksFile } from './tasks-file.js';
import { tasksAsTrusted } from './tasks-trust.js';

export type {
  BatchAgentOptions,
  BatchOutcome,
  BatchProgressEvent,
  BatchRunCommon,
  BatchTaskInput,
  BatchTaskOutcome,
  ResumeBatchOptions,
  RunBatchOptions,
} from './run-batch-types.js';

/** The typed options as `ralph batch`'s flags, so every check and refusal is the command line's, word for word. */
function flagsOf(options: BatchRunCommon): BatchRunOptions {
  const text = (value: number | undefined) => (value === undefined ? undefined : String(value));
  const ms = (value: number | undefined) => (value === undefined ? undefined : `${value}ms`);
  const sandbox = options.sandbox === true ? {} : options.sandbox === false ? undefined : options.sandbox;
  const flags: BatchRunOptions = {
    agent: options.agent,
    agentCommand: options.agentCommand,
    agentReportsCost: options.agentReportsCost,
    ...Object.fromEntries(
      Object.entries(options.agentPaths ?? {}).map(([name, path]) => [`${name}Path`, path]),
    ),
    evaluator: options.evaluator,
    evaluatorCommand: options.evaluatorCommand,
    evaluatorReportsCost: options.evaluatorReportsCost,
    verify: options.verify,
    verifyTimeout: ms(options.verifyTimeoutMs),
    maxRounds: text(options.maxRounds),
    roundTimeout: ms(options.roundTimeoutMs),
    maxTime: ms(options.maxTimeMs),
    maxCost: text(options.maxCostUsd),
    maxIdleRounds: text(options.maxIdleRounds),
    waitOnLimits: options.waitOnLimits,
    graceMs: text(options.graceMs),
    parallel: text(options.parallel),
    into: options.into,
    resolveConflicts: options.resolveConflicts,
    ...(sandbox === undefined
      ? {}
      : {
          sandbox: true,
          sandboxNetwork: sandbox.network,
          sandboxEnv: sandbox.env,
          sandboxHide: sandbox.hide,
        }),
  };
  // Absent, not undefined: the checks tell a given option from one left out.
  return Object.fromEntries(
    Object.entries(flags).filter(([, value]) => value !== undefined),
  ) as BatchRunOptions;
}

/** A task list given in code, checked as a tasks file's (ids, objectives, order); refused in the batch's words. */
function tasksOfList(tasks: readonly BatchTaskInput[]): BatchTask[] {
  try {
    return checkTaskOrder(tasksOfData(JSON.parse(JSON.stringify(tasks))));
  } catch (error) {
    if (error instanceof TasksFileError)
      throw refuse(`ralph batch: the tasks are not a batch's: ${error.message}`);
    throw error;
  }
}

/** A git or session failure in the batch's words, as `ralph batch` refuses it. */
function inBatchWords(error: unknown): unknown {
  return error instanceof SessionError || error instanceof GitError
    ? refuse(`ralph batch: ${error.message}`)
    : error;
}

/** Checks and runs a batch's tasks to the end; the outcome as the library gives it. */
async function runTasks(
  tasks: BatchTask[],
  flags: BatchRunOptions & { tasksFile?: string },
  options: BatchRunCommon,
  cwd: string,
): Promise<BatchOutcome> {
  const parallel = checkBatch(tasks, flags, cwd);
  await assertBatchSandbox(flags);
  const tell = options.onProgress ?? (() => undefined);
  const run = await runCheckedBatch(tasks, { ...flags, parallel }, cwd, {
    say: (text) => tell({ type: 'line', text }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onTaskChange: (task, session) =>
      tell({
        type: 'task',
        taskId: task.id,
        status: task.status,
        note: task.note,
        branch: taskBranch(session.batchId, task.id),
      }),
  });
  const { output, session } = run;
  await run.tracing?.end(
    output.cancelReason !== null || output.tasks.some((task) => task.status !== 'landed'),
  );
  return {
    batchId: session.batchId,
    target: session.target,
    recording: session.recordingPath,
    cancelReason: output.cancelReason,
    spentUsd: run.spentUsd,
    tasks: output.tasks.map((task) => {
      const commit = task.status === 'landed' ? run.commitOf(task.id) : undefined;
      return {
        id: task.id,
        status: task.status,
        note: task.note,
        branch: taskBranch(session.batchId, task.id),
        ...(commit === undefined ? {} : { commit }),
        conflicts: [...task.conflicts],
      };
    }),
  };
}

/**
 * Runs a batch of tasks in the git repository `cwd` is in: each task's Ralph loop in its own worktree on its own
 * branch, at most `parallel` at once, each completed one landed on the target through the merge queue (the user's
 * working tree is never touched). Resolves with every task's end once every child stopped; a refusal throws a
 * RalphError (`refused`, `ralph batch`'s words) and starts nothing.
 */
export async function runBatch(options: RunBatchOptions): Promise<BatchOutcome> {
  const cwd = resolve(options.cwd ?? '.');
  const flags = { ...flagsOf(options), ...(options.trustTasks === true ? { trustTasks: true } : {}) };
  try {
    if (typeof options.tasks !== 'string')
      return await runTasks(tasksOfList(options.tasks), flags, options, cwd);
    const file = options.tasks;
    const use = { command: 'ralph batch', file, nothing: 'nothing was started' };
    const say = (text: string) => options.onProgress?.({ type: 'line', text });
    const tasks = tasksAsTrusted(await readTasksFile(file, use.command), flags, use, say);
    return await runTasks(tasks, { ...flags, tasksFile: resolve(file) }, options, cwd);
  } catch (error) {
    throw inBatchWords(error);
  }
}

/**
 * Goes on with a batch a crash or a cancel cut short, from its recording: landed tasks stay landed, tasks that need
 * review stay so, every other one runs again (a loop whose run was recorded goes on from its last accepted report).
 */
export async function resumeBatch(options: ResumeBatchOptions): Promise<BatchOutcome> {
  const cwd = resolve(options.cwd ?? '.');
  const recording = resolve(options.recording);
  try {
    const tasks = options.tasks === undefined ? await recordedTasks(recording) : tasksOfList(options.tasks);
    return await runTasks(tasks, { ...flagsOf(options), resume: recording }, options, cwd);
  } catch (error) {
    throw inBatchWords(error);
  }
}

/** Puts a batch's target back on the commit the batch started from (`ralph batch --rollback <id>`). */
export async function rollbackBatch(options: { batchId: string; cwd?: string }): Promise<BatchRollback> {
  try {
    return await rollbackBatchTarget(options.batchId, resolve(options.cwd ?? '.'));
  } catch (error) {
    throw inBatchWords(error);
  }
}
