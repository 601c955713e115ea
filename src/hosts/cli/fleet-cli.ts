import { errorText } from '../../contract/error-text.js';
import { isRalphError, RalphError } from '../../contract/errors.js';
import { FleetError } from '../fleet/database.js';
import type { RalphFleet } from '../fleet/fleet.js';
import { EXIT } from './exit-codes.js';
import { reportFailure } from './report-failure.js';

/** The option every fleet command takes. */
export interface FleetOptions {
  databaseUrl?: string;
}

/**
 * Silences Node's deprecation warnings for a fleet command: the `pg` driver the DBOS SDK uses warns about its own
 * pool's use of a client (pg 8.23), a line on every command that says nothing to its user.
 */
export function quietDeprecations(): void {
  process.noDeprecation = true;
}

/** The database URL: --database-url, else $RALPH_DATABASE_URL; refused when neither is given. */
export function databaseUrlOf(options: FleetOptions): string {
  const url = options.databaseUrl ?? process.env.RALPH_DATABASE_URL;
  if (url === undefined || url === '') {
    throw new RalphError({
      code: 'refused',
      message: "ralph needs the fleet's database: pass --database-url postgres://… or set RALPH_DATABASE_URL",
    });
  }
  return url;
}

/** Prints a fleet command's failure: a FleetError as its one line (exit 1), a refusal as `ralph run` does. */
export function reportFleetFailure(error: unknown, json = false): number {
  if (error instanceof FleetError) {
    process.stderr.write(`${error.message}\n`);
    return EXIT.failed;
  }
  if (isRalphError(error)) return reportFailure(error, json);
  // The database's own errors (a query that failed, the connection lost): one line, not a stack.
  process.stderr.write(`ralph: the fleet's database failed: ${errorText(error)}\n`);
  return EXIT.failed;
}

/** Runs `body` with a client of the fleet the options name, closed afterwards; failures as reportFleetFailure. */
export async function withFleet(
  options: FleetOptions & { json?: boolean },
  body: (fleet: RalphFleet) => Promise<number>,
): Promise<number> {
  quietDeprecations();
  try {
    const url = databaseUrlOf(options);
    const { createRalphFleet } = await import('../fleet/fleet.js');
    const fleet = await createRalphFleet({ databaseUrl: url });
    try {
      return await body(fleet);
    } finally {
      await fleet.close();
    }
  } catch (error) {
    return reportFleetFailure(error, options.json === true);
  }
}
