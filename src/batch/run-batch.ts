import { resolve } from 'node:path';
import { type BatchTask, checkTaskOrder, TasksFileError, tasksOfData } from '../contract/batch-tasks.js';
import type { TaskStatus } from '../machines/batch-types.js';
import type { AgentOptions } from '../run/agent-options.js';
import type { EvaluatorOptions } from '../run/evaluator-options.js';
import { GitError } from '../workspace/git-command.js';
import { SessionError, taskBranch } from '../workspace/git-session.js';
import { type BatchRunOptions, checkBatch, refuse } from './batch-checks.js';
import { runCheckedBatch } from './batch-run.js';
import { recordedTasks } from './recorded-tasks.js';
import { type BatchRollback, rollbackBatchTarget } from './rollback.js';
import { assertBatchSandbox } from './sandbox.js';
import { readTasksFile } from './tasks-file.js';
import { tasksAsTrusted } from './tasks-trust.js';

/** One task of a library batch, as a tasks file's JSON gives it: its id, its objective, the tasks it comes after. */
export interface BatchTaskInput {
  id: string;
  objective: string;
  after?: readonly string[];
  /** Its own agent: a preset name, or an agent command (split into argv, never run by a shell). */
  agent?: string;
  /** Its own verify command, over the batch's. */
  verify?: string;
  maxRounds?: number;
}

/** The agent, evaluator, guard rails and limits of a library batch: `ralph batch`'s flags, typed. */
export interface BatchAgentOptions {
  /** A preset agent for every task's rounds (or `agentCommand`). */
  agent?: NonNullable<AgentOptions['agent']>;
  /** Any agent command following the command agent protocol (split into argv, never run by a shell). */
  agentCommand?: string;
  agentReportsCost?: boolean;
  /** A preset's executable, e.g. `{ claude: '/opt/claude' }` (default: on PATH). */
  agentPaths?: Partial<
    Record<'claude' | 'codex' | 'qwen' | 'gemini' | 'opencode' | 'copilot' | 'droid', string>
  >;
  evaluator?: NonNullable<EvaluatorOptions['evaluator']>;
  evaluatorCommand?: string;
  evaluatorReportsCost?: boolean;
  /** A completed task lands only when this command exits 0 (each task's loop, and the merge queue on the target). */
  verify?: string;
  verifyTimeoutMs?: number;
  /** Each task's round cap (a task's own `maxRounds` wins). */
  maxRounds?: number;
  roundTimeoutMs?: number;
  /** The batch's (and each loop's) wall-clock budget: the batch is cancelled with reason `time` when it runs out. */
  maxTimeMs?: number;
  /** The batch's cost budget in US dollars: the batch is cancelled with reason `cost` once its loops spent it. */
  maxCostUsd?: number;
  maxIdleRounds?: number;
  waitOnLimits?: boolean;
  /** How long a cancelled child may take to stop before it is killed (ms, default 5000). */
  graceMs?: number;
  /** Every process of every loop and the merge queue's verify in a bubblewrap sandbox (Linux). */
  sandbox?: boolean | { network?: 'keep' | 'none'; env?: string[]; hide?: string[] };
}

/** A change a library batch reports while it runs. */
export type BatchProgressEvent =
  | { type: 'task'; taskId: string; status: TaskStatus; note: string | null; branch: string }
  /** One line of the batch's progress, as `ralph batch` prints it (without its `ralph batch: ` prefix). */
  | { type: 'line'; text: string };

/** What a library batch is run with besides its tasks. */
export interface BatchRunCommon extends BatchAgentOptions {
  /** A folder in the repository the batch works on (default: the current directory). */
  cwd?: string;
  /** How many loops run at once, 1 to 64 (default 2). */
  parallel?: number;
  /** The branch the tasks land on (default: a new session branch `ralph/batch-<id>`). */
  into?: string;
  /** A task whose landing conflicts gets a resolver loop (needs `verify`); otherwise it needs review. */
  resolveConflicts?: boolean;
  /** Aborted, every loop and the merge queue are cancelled; the batch resolves once every child stopped. */
  signal?: AbortSignal;
  /** Each task's status changes and the batch's progress lines. */
  onProgress?: (event: BatchProgressEvent) => void;
}

/** `runBatch`'s options. */
export interface RunBatchOptions extends BatchRunCommon {
  /**
   * The tasks: a list of tasks, or the path of a tasks file (a Markdown checklist, a JSON or YAML list), read and
   * checked as `ralph batch` reads it. A list is the caller's code: its agents and verify commands run as given.
   */
  tasks: readonly BatchTaskInput[] | string;
  /** A tasks file's own agent and verify commands run only with this (`--trust-tasks`). */
  trustTasks?: boolean;
}

/** `resumeBatch`'s options. */
export interface ResumeBatchOptions extends BatchRunCommon {
  /** The batch's recording (`batch.jsonl`, its path in the outcome of `runBatch`). */
  recording: string;
  /** The batch's tasks as it started with them (default: the tasks its recording holds: ids, objectives, order). */
  tasks?: readonly BatchTaskInput[];
}

/** How one task of a settled batch ended. */
export interface BatchTaskOutcome {
  id: string;
  status: TaskStatus;
  note: string | null;
  /** The task's branch, where its work is committed. */
  branch: string;
  /** A landed task's: the commit its landing moved the target to. */
  commit?: string;
  /** A task that needs review after a conflict: the conflicting files. */
  conflicts: string[];
}

/** How a batch settled. */
export interface BatchOutcome {
  batchId: string;
  /** The branch the tasks landed on. */
  target: string;
  /** The batch's recording: `ralph report` draws it, `resumeBatch` goes on with it. */
  recording: string;
  /** Why the batch was cancelled (`interrupted`, `time`, `cost`), or null when every task ran to its end. */
  cancelReason: string | null;
  tasks: BatchTaskOutcome[];
  /** What the loops' agents said they spent (USD), or null when none said. */
  spentUsd: number | null;
}

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
