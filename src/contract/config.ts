import { z } from 'zod';
import { DEFAULT_MAX_ROUNDS } from './call.js';
import { MAX_DURATION_MS } from './duration.js';
import { RalphError } from './errors.js';
import { TRUNCATION_MARKER } from './messages.js';
import { sandboxSchema } from './sandbox.js';
import { formatIssues } from './zod-issues.js';

/** Default cap on the serialized size of one round report. */
export const DEFAULT_MAX_HANDOFF_CHARS = 16_384;
/** Default cap on the rendered result text, its truncation marker included. */
export const DEFAULT_MAX_RESULT_CHARS = 16_384;
/** Default time a cancelled child gets to stop before it is killed. */
export const DEFAULT_TERMINATION_GRACE_MS = 5_000;

/** The longest grace a cancelled child may be given (ms). */
export const MAX_TERMINATION_GRACE_MS = 600_000;

/** Default time a verify command may run before it is stopped and counted as failed: 10 minutes. */
export const DEFAULT_VERIFY_TIMEOUT_MS = 600_000;
/** Default length of the end of a verify command's output kept for the next round: 4,000 characters. */
export const DEFAULT_VERIFY_OUTPUT_CHARS = 4_000;

const positiveInt = z.number().int().positive();
/** A guard rail's duration: at least 1 ms, at most what a timer can wait (2^31 − 1 ms, about 24.8 days). */
const durationMs = positiveInt.max(MAX_DURATION_MS);

/** The verify command of the config: argv (no shell), a timeout, and how much output the next round sees. */
const verifySchema = z.strictObject({
  /** The command and its arguments, run in the workspace without a shell, e.g. `['npm', 'test']`. */
  argv: z.array(z.string().min(1)).min(1),
  /** How long the command may run before it is stopped and counted as failed (ms, default 10 minutes). */
  timeoutMs: durationMs.default(DEFAULT_VERIFY_TIMEOUT_MS),
  /** How much of the end of its output the next round's handoff may carry (default 4,000 characters). */
  maxOutputChars: positiveInt.max(1_000_000).default(DEFAULT_VERIFY_OUTPUT_CHARS),
});

/** The deployment config of the tool: fixed by the deployment, never by a call. */
export const configSchema = z.strictObject({
  /** The registry name of the provider that starts every round's child. */
  subagentProvider: z.string().trim().min(1),
  /** Default and ceiling of a call's maxRounds; at most 256. */
  maxRounds: positiveInt.max(DEFAULT_MAX_ROUNDS).default(DEFAULT_MAX_ROUNDS),
  /** Ceiling on `JSON.stringify(report).length`; a larger report fails the run. */
  maxHandoffChars: positiveInt.default(DEFAULT_MAX_HANDOFF_CHARS),
  /** Ceiling on the rendered result text; must leave room for the truncation marker. */
  maxResultChars: positiveInt.min(TRUNCATION_MARKER.length + 1).default(DEFAULT_MAX_RESULT_CHARS),
  /** How long a cancelled child may take to stop before it is killed (ms). */
  terminationGraceMs: z
    .number()
    .int()
    .nonnegative()
    .max(MAX_TERMINATION_GRACE_MS)
    .default(DEFAULT_TERMINATION_GRACE_MS),
  // The guard rails: each optional, and absent means off, so a config without them runs as the reference does.
  /** A round's child that has not reported within this is stopped and the run fails as that round's child failure (ms). */
  roundTimeoutMs: durationMs.optional(),
  /** The run's wall-clock budget: no round starts once it is spent, and a running one is stopped (ms). */
  maxWallTimeMs: durationMs.optional(),
  /** A command that must exit 0 in the workspace before a reported completion is accepted. */
  verify: verifySchema.optional(),
  /** This many consecutive `continue` rounds that leave the workspace unchanged end the run budget-limited. */
  maxIdleRounds: positiveInt.max(DEFAULT_MAX_ROUNDS).optional(),
  /**
   * The run's cost budget in US dollars: no round starts once what the rounds' agents said they cost has reached
   * it. Needs a provider that declares `reportsCost`; a run with any other is refused before anything starts.
   */
  maxCostUsd: z.number().positive().finite().optional(),
  /**
   * A round that ended on a usage or rate limit waits for it to reset (plus a margin; with no reset time, a bounded
   * backoff) and runs again with a fresh child, costing no round of the cap; off, such a round fails the run.
   */
  waitOnLimits: z.boolean().optional(),
  /**
   * A round that reports `blocked` does not end the run: the run waits this long for a person's answer (`--ask`,
   * `--wait-for-answers`), then the next round gets the blocked report and the answer; unanswered, it ends blocked.
   * Absent: a blocked report ends the run, as in the reference (ms).
   */
  waitForAnswersMs: durationMs.optional(),
  /**
   * An independent evaluator: when a round reports complete (and any verify command passed), one fresh child of
   * this registered provider checks the workspace and must accept before the run completes; a rejection hands its
   * findings to the next round. Absent: the worker's report decides, as in the reference.
   */
  evaluator: z.strictObject({ provider: z.string().trim().min(1) }).optional(),
  /**
   * Every process of the run (agent, evaluator, verify command) starts in a bubblewrap sandbox: only the workspace
   * and the round's folder writable, a private home and /tmp, an allow-listed environment, its own PID namespace.
   * Linux only; a run where it cannot start is refused. Absent: processes run as the user, as in the reference.
   */
  sandbox: sandboxSchema.optional(),
});

/** The config as a deployment writes it. */
export type RalphConfigInput = z.input<typeof configSchema>;
/** The config after validation, with every default filled in. */
export type RalphConfig = z.output<typeof configSchema>;

/** Validates and normalizes a deployment config; throws a `refused` RalphError naming every problem. */
export function normalizeConfig(input: unknown): RalphConfig {
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return Object.freeze(parsed.data);
  throw new RalphError({
    code: 'refused',
    message: `Ralph config is invalid: ${formatIssues(parsed.error)}`,
  });
}
