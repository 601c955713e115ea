import { readFileSync } from 'node:fs';
import { errorText } from '../../contract/error-text.js';
import { isRalphError, RalphError } from '../../contract/errors.js';
import type { RalphFleet } from '../../fleet/client.js';
import { FleetError, redactedUrl } from '../../fleet/database.js';
import { EXIT } from './exit-codes.js';
import { printFailure } from './print-failure.js';

/** The options every fleet command takes. */
export interface FleetOptions {
  databaseUrl?: string;
  /** A file holding the URL (its first line), so the password is not on the command line. */
  databaseUrlFile?: string;
}

/**
 * Silences Node's deprecation warnings for a fleet command: the `pg` driver the DBOS SDK uses warns about its own
 * pool's use of a client (pg 8.23), a line on every command that says nothing to its user.
 */
export function quietDeprecations(): void {
  process.noDeprecation = true;
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** Where the URL came from, and the URL. */
function givenUrl(options: FleetOptions): { from: string; url: string | undefined } {
  if (options.databaseUrl !== undefined && options.databaseUrlFile !== undefined)
    throw refuse('ralph takes either --database-url or --database-url-file, not both');
  if (options.databaseUrlFile !== undefined) {
    const from = `--database-url-file ${options.databaseUrlFile}`;
    try {
      return { from, url: readFileSync(options.databaseUrlFile, 'utf8').split('\n')[0]?.trim() };
    } catch (error) {
      throw refuse(`ralph ${from}: cannot read it (${errorText(error)})`);
    }
  }
  if (options.databaseUrl !== undefined) return { from: '--database-url', url: options.databaseUrl };
  return { from: 'RALPH_DATABASE_URL', url: process.env.RALPH_DATABASE_URL };
}

/**
 * The database URL: --database-url, --database-url-file, else $RALPH_DATABASE_URL; refused when none is given or it
 * is no postgres:// URL (checked before any connection, so `localhost:5432` is not reported as unreachable). A
 * password on the command line gets a warning: every local user reads it in /proc/<pid>/cmdline.
 */
export function databaseUrlOf(options: FleetOptions): string {
  const { from, url } = givenUrl(options);
  if (url === undefined || url === '') {
    throw new RalphError({
      code: 'refused',
      message: "ralph needs the fleet's database: pass --database-url postgres://… or set RALPH_DATABASE_URL",
    });
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !['postgres:', 'postgresql:'].includes(parsed.protocol)) {
    const shown = parsed === undefined ? JSON.stringify(url.replace(/:[^:@/]*@/, ':***@')) : redactedUrl(url);
    throw refuse(
      `ralph ${from} ${shown} is not a Postgres URL: write it as postgres://user@host:5432/database`,
    );
  }
  if (from === '--database-url' && parsed.password !== '') {
    process.stderr.write(
      'ralph: warning: the password in --database-url is readable by every local user (the command line of this ' +
        'process); put the URL in a file (--database-url-file FILE) or in RALPH_DATABASE_URL\n',
    );
  }
  return url;
}

/** Whether any worker of the fleet holds a live lease. */
export async function anyWorkerLive(fleet: RalphFleet): Promise<boolean> {
  return (await fleet.workers()).some((worker) => !worker.expired);
}

/** Said when a run waits in a queue no worker takes from, with the way to start one. */
export const NO_LIVE_WORKER =
  'no worker is live on this fleet: the run waits in the queue until one starts ' +
  "(ralph worker --agent … on a machine that sees the run's workspace)";

/** Prints a fleet command's failure: a FleetError as its one line (exit 1), a refusal as `ralph run` does. */
export function reportFleetFailure(error: unknown, json = false): number {
  if (error instanceof FleetError) {
    process.stderr.write(`${error.message}\n`);
    return EXIT.failed;
  }
  if (isRalphError(error)) return printFailure(error, json);
  // The database's own errors (a query that failed, the connection lost): one line, not a stack.
  process.stderr.write(`ralph: the fleet's database failed: ${errorText(error)}\n`);
  return EXIT.failed;
}

/**
 * Runs `body` with a client of the fleet the options name (and its URL), closed afterwards; failures as reportFleetFailure. Only
 * `submit` may create the database (`create`); the read-only commands never do.
 */
export async function withFleet(
  options: FleetOptions & { json?: boolean },
  body: (fleet: RalphFleet, databaseUrl: string) => Promise<number>,
  { create = false }: { create?: boolean } = {},
): Promise<number> {
  quietDeprecations();
  try {
    const url = databaseUrlOf(options);
    const { createRalphFleet } = await import('../../fleet/client.js');
    const fleet = await createRalphFleet({ databaseUrl: url, create });
    try {
      return await body(fleet, url);
    } finally {
      await fleet.close();
    }
  } catch (error) {
    return reportFleetFailure(error, options.json === true);
  }
}
