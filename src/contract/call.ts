import { z } from 'zod';
import { isPositiveSafeInteger } from './integers.js';

/** The deployment's default and ceiling for rounds in one run. */
export const DEFAULT_MAX_ROUNDS = 256;

/**
 * The call's schema as hosts show it to a model: one required objective string and one optional maxRounds
 * number. Deliberately loose (no `.min(1)`, no `.int()`): the tool's own checks answer with the reference's
 * messages, and a stricter host schema would answer with its library's text instead.
 */
export const callArgsSchema = z.object({
  objective: z.string().describe('The immutable objective every fresh round works toward.'),
  maxRounds: z
    .number()
    .optional()
    .describe('Optional round cap for this run; the deployment maxRounds is the default and the ceiling.'),
});

/** The arguments of a ralph call as a model sends them. */
export type RalphCallArgs = z.infer<typeof callArgsSchema>;

/** The call's JSON Schema: exactly `{ objective: string (required), maxRounds?: number }`. */
export const callJsonSchema = Object.freeze({
  type: 'object',
  properties: {
    objective: { type: 'string', description: 'The immutable objective every fresh round works toward.' },
    maxRounds: {
      type: 'number',
      description:
        'Optional round cap for this run; the deployment maxRounds is the default and the ceiling.',
    },
  },
  required: ['objective'],
  additionalProperties: false,
} as const);

const field = (args: unknown, key: string): unknown =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;

/** The call's objective field, whatever it holds. */
export function objectiveOf(args: unknown): unknown {
  return field(args, 'objective');
}

/**
 * The longest objective a call may carry, in characters (1 MiB). Each round's prompt carries the whole objective to
 * a fresh child, and a recording keeps it: past this a call is refused before anything starts.
 */
export const MAX_OBJECTIVE_CHARS = 1_048_576;

/** Refusal of an objective past MAX_OBJECTIVE_CHARS (not a reference text: the reference sets no such cap). */
export function objectiveTooLong(length: number, max: number = MAX_OBJECTIVE_CHARS): string {
  return `Ralph objective is ${length} characters long; at most ${max} are accepted`;
}

/** True when an objective is a string with something other than white space in it. */
export function isNonEmptyObjective(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

/** The call's own maxRounds; null counts as absent (strict structured-output models send null for optionals). */
export function requestedMaxRoundsOf(args: unknown): unknown {
  const value = field(args, 'maxRounds');
  return value === null ? undefined : value;
}

/** True when a requested maxRounds is absent or a positive safe integer. */
export function isValidMaxRounds(value: unknown): boolean {
  return value === undefined || isPositiveSafeInteger(value);
}

/** The round cap of a call: its own maxRounds where valid, else the deployment default. */
export function resolveMaxRounds(requested: unknown, deploymentMaxRounds: number): number {
  return typeof requested === 'number' && isValidMaxRounds(requested) ? requested : deploymentMaxRounds;
}

/**
 * True when the tool's own checks of a call (objective, round cap, its ceiling) will pass: a host prepares a run
 * (checks its agent can start) only for a call the tool will accept, and leaves the others to the tool's refusal.
 */
export function callIsAcceptable(args: Record<string, unknown>): boolean {
  const requested = requestedMaxRoundsOf(args);
  return (
    isNonEmptyObjective(objectiveOf(args)) &&
    isValidMaxRounds(requested) &&
    !(typeof requested === 'number' && requested > DEFAULT_MAX_ROUNDS)
  );
}
