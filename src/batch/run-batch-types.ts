import type { TaskStatus } from '../machines/batch-types.js';
import type { AgentOptions } from '../run/agent-options.js';
import type { EvaluatorOptions } from '../run/evaluator-options.js';

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
