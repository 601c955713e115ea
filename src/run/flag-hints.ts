import { DEFAULT_MAX_ROUNDS } from '../contract/call.js';
import { MAX_TERMINATION_GRACE_MS } from '../contract/config.js';
import { RalphError } from '../contract/errors.js';
import { MAX_ROUNDS_INVALID, OBJECTIVE_EMPTY } from '../contract/messages.js';

/**
 * The command line's second line under a refusal of the tool's: the tool speaks of its fields (the reference's
 * texts, kept word for word), a newcomer types flags, so this line names the flag, what it accepts and what was given.
 * Library and MCP callers get the tool's text alone.
 */

/** The second line under a refusal of the objective. */
export const OBJECTIVE_HINT =
  'ralph: pass the objective as the first argument, in quotes: ralph run "Tick every box in TASKS.md" --agent example';

/** The second line under a refusal of the round cap. */
export function maxRoundsHint(given: string | undefined): string {
  return `ralph: --max-rounds takes a whole number from 1 to ${DEFAULT_MAX_ROUNDS} (got ${JSON.stringify(given)})`;
}

/** The second line under a refusal of the grace. */
export function graceMsHint(given: string | undefined, max: number): string {
  return `ralph: --grace-ms takes a whole number of milliseconds from 0 to ${max} (got ${JSON.stringify(given)})`;
}

/** The same refusal with `hint` as its detail; anything else, or a failure that already has a detail, unchanged. */
export function withHint(error: unknown, hint: (error: RalphError) => string | undefined): unknown {
  if (!(error instanceof RalphError) || error.code !== 'refused' || error.detail !== undefined) return error;
  const detail = hint(error);
  return detail === undefined
    ? error
    : new RalphError({ ...error.toJSON(), detail }, error.runId === undefined ? {} : { runId: error.runId });
}

/** The hint for a refusal of `ralph run`'s call arguments: the objective, or `--max-rounds` as given. */
export function callArgumentHint(maxRounds: string | undefined) {
  return (error: RalphError): string | undefined => {
    if (error.message === OBJECTIVE_EMPTY) return OBJECTIVE_HINT;
    if (error.message === MAX_ROUNDS_INVALID || error.message.startsWith('Ralph maxRounds '))
      return maxRoundsHint(maxRounds);
    return undefined;
  };
}

/** The hint for a refusal of the config the agent options set: `--grace-ms`, or `ralph mcp --max-rounds`. */
export function configHint(graceMs: string | undefined, deploymentMaxRounds: string | undefined) {
  return (error: RalphError): string | undefined => {
    if (error.message.startsWith('Ralph config is invalid: terminationGraceMs'))
      return graceMsHint(graceMs, MAX_TERMINATION_GRACE_MS);
    if (error.message.startsWith('Ralph config is invalid: maxRounds'))
      return maxRoundsHint(deploymentMaxRounds);
    return undefined;
  };
}
