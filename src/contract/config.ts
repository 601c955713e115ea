import { z } from 'zod';
import { DEFAULT_MAX_ROUNDS } from './call.js';
import { RalphError } from './errors.js';
import { TRUNCATION_MARKER } from './messages.js';
import { formatIssues } from './zod-issues.js';

/** Default cap on the serialized size of one round report. */
export const DEFAULT_MAX_HANDOFF_CHARS = 16_384;
/** Default cap on the rendered result text, its truncation marker included. */
export const DEFAULT_MAX_RESULT_CHARS = 16_384;
/** Default time a cancelled child gets to stop before it is killed. */
export const DEFAULT_TERMINATION_GRACE_MS = 5_000;

const positiveInt = z.number().int().positive();

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
  terminationGraceMs: z.number().int().nonnegative().max(600_000).default(DEFAULT_TERMINATION_GRACE_MS),
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
