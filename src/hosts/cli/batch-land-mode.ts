import { RalphError } from '../../contract/errors.js';
import { isPlainHttpUrl } from '../../contract/plain-http-url.js';

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

/**
 * The landing `ralph batch`'s options ask for, with the options that only a batch landing as pull requests takes
 * (`--report-url`, `--github-repo`) refused without `--land pr`.
 */
export function batchLandMode(options: {
  land?: string;
  stack?: boolean;
  reportUrl?: string;
  githubRepo?: string;
}): LandMode {
  const landMode = landModeOf(options.land, options.stack);
  if (options.reportUrl !== undefined && landMode.kind !== 'pr')
    throw refuse('--report-url needs --land pr: the pull requests link the report there');
  if (options.reportUrl !== undefined && !isPlainHttpUrl(options.reportUrl))
    throw refuse(
      `--report-url must be an http(s) URL with no credential (got ${JSON.stringify(options.reportUrl)})`,
    );
  if (options.githubRepo !== undefined && landMode.kind !== 'pr')
    throw refuse('--github-repo needs --land pr: it names where the pull requests are opened');
  return landMode;
}
