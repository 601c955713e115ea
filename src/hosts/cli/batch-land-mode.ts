import { RalphError } from '../../contract/errors.js';

/**
 * How `ralph batch` lands: on the target (the default), as one pull request per task (`--land pr`, stacked with
 * `--stack`), or one task of an earlier batch fixed by hand (`--land <batch-id> <task-id>`). One option carries both
 * `--land` forms without ambiguity: a batch id has a fixed form (`20261201-1522-a1b2c3`, see contract/batch-id.ts)
 * that `pr` never has.
 */
export type LandMode =
  | { kind: 'target' }
  | { kind: 'pr'; stack: boolean }
  | { kind: 'fixed-task'; batchId: string };

/** The word of `--land` that lands each task as a pull request. */
export const LAND_AS_PULLS = 'pr';

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** The landing `--land` and `--stack` ask for; refuses `--stack` without `--land pr`. */
export function landModeOf(land: string | undefined, stack: boolean | undefined): LandMode {
  if (land === LAND_AS_PULLS) return { kind: 'pr', stack: stack === true };
  if (stack === true)
    throw refuse('--stack needs --land pr: it stacks the pull requests of tasks that come after others');
  if (land === undefined) return { kind: 'target' };
  // Any other word is a batch id: `--land` of a task fixed by hand says itself when there is no such batch.
  return { kind: 'fixed-task', batchId: land };
}
