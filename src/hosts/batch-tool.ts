import { MAX_PARALLEL } from '../batch/batch-checks.js';
import {
  type BatchAgentOptions,
  type BatchOutcome,
  type BatchProgressEvent,
  type BatchTaskInput,
  runBatch,
} from '../batch/run-batch.js';
import {
  DEFAULT_MAX_ROUNDS,
  isNonEmptyObjective,
  isValidMaxRounds,
  MAX_OBJECTIVE_CHARS,
  objectiveTooLong,
} from '../contract/call.js';
import { DEFAULT_MAX_RESULT_CHARS } from '../contract/config.js';
import { RalphError } from '../contract/errors.js';
import { isPositiveSafeInteger } from '../contract/integers.js';
import { MAX_ROUNDS_INVALID, maxRoundsExceedsCeiling, OBJECTIVE_EMPTY } from '../contract/messages.js';
import { truncateText } from '../render/truncate.js';

// The `ralph_batch` tool, the same on every host that offers it (an MCP server started with --batch, an AI SDK app):
// a model sends tasks, never commands; the agent, verify command and guard rails are the deployment's.

/** The tool's name, as hosts list it. */
export const RALPH_BATCH_TOOL = 'ralph_batch';

/**
 * The most tasks one call may carry. Each task is a Ralph loop on its own branch and worktree; a model that sends
 * hundreds at once would start a night's work nobody asked for, and its result text would be cut anyway.
 */
export const MAX_BATCH_TASKS = 64;

/** What a host shows a model as the tool's description. */
export const RALPH_BATCH_DESCRIPTION =
  'Runs a batch of independent objectives as Ralph loops, each in its own git worktree and branch, at most ' +
  '`parallel` at once (default 2), and lands every completed task on the batch branch through a merge queue. ' +
  'Send tasks as { id, objective, after?, maxRounds? } (after: ids of tasks that must land first). The result ' +
  "lists each task's end: landed (with its commit), needs-review, failed, skipped or cancelled.";

/** The tool's input as a client or model is shown it (bounds included; the tool's own checks judge a call). */
export const batchArgsJsonSchema = Object.freeze({
  type: 'object',
  properties: {
    tasks: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_TASKS,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'A short id (letters, digits, - and _), unique in the batch.' },
          objective: { type: 'string', description: "The immutable objective of this task's loop." },
          after: {
            type: 'array',
            items: { type: 'string' },
            description: 'Ids of tasks that must land before this one starts.',
          },
          maxRounds: {
            type: 'number',
            description:
              "Optional round cap for this task; the deployment's maxRounds is the default and ceiling.",
          },
        },
        required: ['id', 'objective'],
        additionalProperties: false,
      },
    },
    parallel: { type: 'number', description: 'How many loops run at once, 1 to 64 (default 2).' },
  },
  required: ['tasks'],
  additionalProperties: false,
} as const);

/** A call's arguments, as the schema describes them. */
export interface BatchToolArgs {
  tasks: { id: string; objective: string; after?: string[]; maxRounds?: number }[];
  parallel?: number;
}

/** What a `ralph_batch` tool runs every call with: the deployment's agent, verify command and limits. */
export interface RalphBatchToolOptions extends Omit<BatchAgentOptions, 'maxRounds'> {
  /** The repository folder every batch works in (default: the current directory). */
  cwd?: string;
  /** The branch every batch lands on (default: a new session branch per batch). */
  into?: string;
  /** A conflicting task gets a resolver loop (needs `verify`). */
  resolveConflicts?: boolean;
  /** The default and ceiling of a task's maxRounds (default DEFAULT_MAX_ROUNDS). */
  maxRounds?: number;
  /** The result text's bound in characters (default DEFAULT_MAX_RESULT_CHARS, as the ralph tool's). */
  maxResultChars?: number;
}

/** What a host passes with each call. */
export interface BatchToolExec {
  /** Aborting it cancels the batch; `execute` still waits until every child stopped. */
  signal?: AbortSignal;
  onProgress?: (event: BatchProgressEvent) => void;
}

/** The `ralph_batch` tool as a host exposes it. */
export interface RalphBatchTool {
  readonly name: typeof RALPH_BATCH_TOOL;
  readonly description: string;
  readonly jsonSchema: typeof batchArgsJsonSchema;
  /** Checks the call and runs the batch; a refusal throws a `refused` RalphError and starts nothing. */
  execute(args: unknown, exec?: BatchToolExec): Promise<BatchOutcome>;
  /** The native result text: each task's end, bounded like the ralph tool's. */
  resultText(outcome: BatchOutcome): string;
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** null counts as absent: strict structured-output models send null for optionals. */
const given = (value: unknown): unknown => (value === null ? undefined : value);

const TASK_KEYS = ['id', 'objective', 'after', 'maxRounds'];

/** Refusal: a call without a list of tasks. */
export const BATCH_TASKS_MISSING =
  'ralph_batch needs tasks: a list of { id, objective, after?, maxRounds? }, at least one';

/** Refusal: more tasks than MAX_BATCH_TASKS. */
export function tooManyBatchTasks(count: number, max: number = MAX_BATCH_TASKS): string {
  return `ralph_batch takes at most ${max} tasks in one call (got ${count}); send the rest in another call`;
}

/** One task checked as the ralph tool checks a call: its objective, then its maxRounds against the ceiling. */
function taskOf(value: unknown, index: number, ceiling: number): BatchTaskInput {
  if (!isRecord(value))
    throw refuse(`ralph_batch task ${index + 1} is not an object: ${BATCH_TASKS_MISSING}`);
  const name = typeof value.id === 'string' ? JSON.stringify(value.id) : String(index + 1);
  const problem = (message: string) => refuse(`ralph_batch task ${name}: ${message}`);
  // A model sends tasks, never commands: a task's own agent or verify command is the deployment's to give.
  const extra = Object.keys(value).filter((key) => !TASK_KEYS.includes(key));
  if (extra.length > 0)
    throw problem(`only id, objective, after and maxRounds are taken (got ${extra.join(', ')})`);
  const { objective } = value;
  if (typeof objective === 'string' && objective.length > MAX_OBJECTIVE_CHARS)
    throw problem(objectiveTooLong(objective.length));
  if (!isNonEmptyObjective(objective)) throw problem(OBJECTIVE_EMPTY);
  const maxRounds = given(value.maxRounds);
  if (!isValidMaxRounds(maxRounds)) throw problem(MAX_ROUNDS_INVALID);
  if (typeof maxRounds === 'number' && maxRounds > ceiling)
    throw problem(maxRoundsExceedsCeiling(maxRounds, ceiling));
  const after = given(value.after);
  return {
    id: value.id as string,
    objective,
    ...(after === undefined ? {} : { after: after as string[] }),
    ...(maxRounds === undefined ? {} : { maxRounds: maxRounds as number }),
  };
}

/** A call's tasks and parallel, checked before anything starts (ids and order are the library's to check). */
function callOf(args: unknown, ceiling: number): { tasks: BatchTaskInput[]; parallel?: number } {
  if (!isRecord(args) || !Array.isArray(args.tasks) || args.tasks.length === 0)
    throw refuse(BATCH_TASKS_MISSING);
  const extra = Object.keys(args).filter((key) => key !== 'tasks' && key !== 'parallel');
  if (extra.length > 0) throw refuse(`ralph_batch takes only tasks and parallel (got ${extra.join(', ')})`);
  if (args.tasks.length > MAX_BATCH_TASKS) throw refuse(tooManyBatchTasks(args.tasks.length));
  const parallel = given(args.parallel);
  if (parallel !== undefined && !(isPositiveSafeInteger(parallel) && parallel <= MAX_PARALLEL))
    throw refuse(
      `ralph_batch parallel must be a whole number from 1 to ${MAX_PARALLEL} (got ${JSON.stringify(parallel)})`,
    );
  const tasks = args.tasks.map((task, index) => taskOf(task, index, ceiling));
  return { tasks, ...(parallel === undefined ? {} : { parallel: parallel as number }) };
}

/** One task's end, one line: its id, status and note, and where its work is. */
function taskLine(task: BatchOutcome['tasks'][number]): string {
  const note = task.note === null ? '' : `: ${task.note.replace(/\s+/g, ' ').trim()}`;
  const where =
    task.commit === undefined ? `branch ${task.branch}` : `commit ${task.commit}, branch ${task.branch}`;
  return `- ${task.id}: ${task.status}${note} (${where})`;
}

/** The result text of a settled batch: how many landed where, each task's end, and its recording. */
export function batchResultText(outcome: BatchOutcome, maxChars: number = DEFAULT_MAX_RESULT_CHARS): string {
  const landed = outcome.tasks.filter((task) => task.status === 'landed').length;
  const cancelled = outcome.cancelReason === null ? '' : `; cancelled (${outcome.cancelReason})`;
  const lines = [
    `Ralph batch ${outcome.batchId}: ${landed} of ${outcome.tasks.length} task(s) landed on ${outcome.target}${cancelled}`,
    ...outcome.tasks.map(taskLine),
    ...(outcome.spentUsd === null ? [] : [`Spent: $${outcome.spentUsd.toFixed(2)}`]),
    `Recording: ${outcome.recording}`,
  ];
  return truncateText(lines.join('\n'), maxChars);
}

/**
 * Creates the `ralph_batch` tool over the library's `runBatch`: a call's tasks are checked as the ralph tool checks
 * a call (each objective, each maxRounds against the deployment's ceiling), at most MAX_BATCH_TASKS of them, and run
 * with the deployment's agent, verify command and guard rails. A refusal throws and starts nothing.
 */
export function createRalphBatchTool(options: RalphBatchToolOptions): RalphBatchTool {
  const { maxResultChars, maxRounds, ...deployment } = options;
  const ceiling = maxRounds ?? DEFAULT_MAX_ROUNDS;
  return {
    name: RALPH_BATCH_TOOL,
    description: RALPH_BATCH_DESCRIPTION,
    jsonSchema: batchArgsJsonSchema,
    async execute(args, exec = {}) {
      const call = callOf(args, ceiling);
      return runBatch({
        ...deployment,
        ...call,
        maxRounds: ceiling,
        ...(exec.signal === undefined ? {} : { signal: exec.signal }),
        ...(exec.onProgress === undefined ? {} : { onProgress: exec.onProgress }),
      });
    },
    resultText: (outcome) => batchResultText(outcome, maxResultChars),
  };
}
