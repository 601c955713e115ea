import type { BatchTask } from '../contract/batch-tasks.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../contract/config.js';
import { parseDuration } from '../contract/duration.js';
import { RalphError } from '../contract/errors.js';
import type { AgentOptions } from '../run/agent-options.js';
import type { AskOptions } from '../run/ask-options.js';
import type { EvaluatorOptions } from '../run/evaluator-options.js';
import { evaluatorFor } from '../run/evaluator-options.js';
import type { GuardRailOptions } from '../run/guard-rail-options.js';
import { guardRailConfig } from '../run/guard-rail-options.js';
import { assertAgentStartable, providerFor } from '../run/options-tool.js';
import type { SandboxOptions } from '../run/sandbox-options.js';
import { answerWaitOf } from './answers.js';
import { taskOptions } from './loops.js';

/**
 * A batch's options as the command line gives them (strings, checked here and by the tool in the command line's
 * words): the agent, evaluator, guard rails, sandbox and asking of every task's loop, and the batch's own.
 */
export interface BatchRunOptions
  extends AgentOptions,
    AskOptions,
    GuardRailOptions,
    EvaluatorOptions,
    SandboxOptions {
  maxRounds?: string;
  parallel?: string;
  into?: string;
  resolveConflicts?: boolean;
  /** The recording of a batch to go on with (`--resume`). */
  resume?: string;
}

/** How many loops a batch runs at once unless told otherwise, and the most it takes. */
export const DEFAULT_PARALLEL = 2;
export const MAX_PARALLEL = 64;

/** A `refused` RalphError: nothing was started. */
export const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** `--parallel`: a whole number from 1 to 64. */
export function parallelOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PARALLEL;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_PARALLEL)
    throw refuse(`--parallel must be a whole number from 1 to ${MAX_PARALLEL} (got ${JSON.stringify(text)})`);
  return value;
}

/** `--grace-ms` for the merge queue's verify command: a whole number of milliseconds from 0 (default 5000). */
export function graceOf(text: string | undefined): number {
  if (text === undefined) return 5_000;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw refuse(`--grace-ms must be a whole number of milliseconds (got ${JSON.stringify(text)})`);
  return value;
}

/**
 * Checks a batch's options and every task's agent, evaluator and guard rails before anything starts (a refusal here
 * starts no loop); returns how many loops run at once.
 */
export function checkBatch(tasks: readonly BatchTask[], options: BatchRunOptions, cwd: string): number {
  const parallel = parallelOf(options.parallel);
  if (options.resolveConflicts === true && options.verify === undefined)
    throw refuse(
      '--resolve-conflicts needs --verify: a resolved merge lands only when the verify command passes on it',
    );
  for (const task of tasks) {
    const own = taskOptions({ options }, task);
    const provider = providerFor(own);
    const evaluator = evaluatorFor(own);
    guardRailConfig(own);
    assertAgentStartable(provider, own, cwd);
    evaluator?.preflight?.(cwd);
  }
  return parallel;
}

/** A batch's own limits, read from its options: a bad value is refused before the batch opens. */
export function batchLimits(options: Omit<BatchRunOptions, 'parallel'>) {
  return {
    /** `--max-time`: the batch is cancelled (reason `time`) once it ran this long; null: no limit. */
    batchTimeMs: options.maxTime === undefined ? null : parseDuration(options.maxTime, '--max-time'),
    /** `--max-cost`: the batch is cancelled (reason `cost`) once its loops spent this; null: no limit. */
    batchCostUsd: guardRailConfig(options).maxCostUsd ?? null,
    verifyTimeoutMs:
      options.verifyTimeout === undefined
        ? DEFAULT_VERIFY_TIMEOUT_MS
        : parseDuration(options.verifyTimeout, '--verify-timeout'),
    graceMs: graceOf(options.graceMs),
    /** With `--ask`: how long a task's loop waits for a person's answer. */
    waitForAnswersMs: answerWaitOf(options),
  };
}
