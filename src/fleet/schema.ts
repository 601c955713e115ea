import { RalphError } from '../contract/errors.js';
import { packageVersion as ralphVersion } from '../package-root.js';
import { FLEET_SCHEMA_VERSION, FLEET_WORKFLOW, LEASE_TABLE, SCHEMA_TABLE } from './constants.js';
import { redactedUrl } from './database.js';
import { LeaseTable } from './leases.js';
import { createPgPool, type PgPool } from './pg-pool.js';
import { ensureQueueWakeTrigger } from './queue-wake-trigger.js';
import { RunEventTable } from './run-events.js';
import { withSetupLock } from './setup-lock.js';

/** Runs `body` with DBOS's console lines silenced (`ralph submit` prints only the run id on stdout). */
async function silenced(body: () => Promise<void>): Promise<void> {
  const saved = { log: console.log, info: console.info, warn: console.warn };
  const drop = () => {};
  console.log = drop;
  console.info = drop;
  console.warn = drop;
  try {
    await body();
  } finally {
    Object.assign(console, saved);
  }
}

/** What the database holds of ralph's schema before it is set up. */
type FoundSchema =
  | { kind: 'empty' }
  | { kind: 'current' }
  /** Set up by a ralph-machine whose fleet schema differs from this one's (1: before the schema was recorded). */
  | { kind: 'other'; version: number; by: string };

async function foundSchema(pool: PgPool): Promise<FoundSchema> {
  const { rows } = await pool.query<{ recorded: boolean; leases: boolean; dbos: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS recorded, to_regclass($2) IS NOT NULL AS leases,
       to_regclass('dbos.workflow_status') IS NOT NULL AS dbos`,
    [SCHEMA_TABLE, LEASE_TABLE],
  );
  const { recorded, leases, dbos } = rows[0] ?? { recorded: false, leases: false, dbos: false };
  if (recorded) {
    const marks = await pool.query<{ version: number; ralph_version: string }>(
      `SELECT version, ralph_version FROM ${SCHEMA_TABLE} LIMIT 1`,
    );
    const mark = marks.rows[0];
    if (mark === undefined) return { kind: 'empty' };
    return mark.version === FLEET_SCHEMA_VERSION
      ? { kind: 'current' }
      : { kind: 'other', version: mark.version, by: `ralph-machine ${mark.ralph_version}` };
  }
  // The first release recorded nothing: its lease table, or its runs in DBOS's tables, give it away.
  let runs = false;
  if (!leases && dbos) {
    const found = await pool.query('SELECT 1 FROM dbos.workflow_status WHERE name = $1 LIMIT 1', [
      FLEET_WORKFLOW,
    ]);
    runs = found.rows.length > 0;
  }
  return leases || runs ? { kind: 'other', version: 1, by: 'ralph-machine 0.1' } : { kind: 'empty' };
}

/** The refusal of a database another version of ralph set up, saying what to do. */
function otherSchemaRefused(what: string, databaseUrl: string, found: { version: number; by: string }) {
  const mine = `ralph-machine ${ralphVersion()} (fleet schema ${FLEET_SCHEMA_VERSION})`;
  const theirs = `${found.by} (fleet schema ${found.version})`;
  const advice =
    found.version > FLEET_SCHEMA_VERSION
      ? `run this fleet with ${found.by} or later`
      : `let workers of ${found.by} finish or cancel its runs, then run this version on a fresh database ` +
        '(another database name in --database-url: ralph creates it)';
  return new RalphError({
    code: 'refused',
    message: `${what}: the fleet's database ${redactedUrl(databaseUrl)} was set up by ${theirs}, which ${mine} cannot use; ${advice}`,
  });
}

/** What a fleet's database was found to be: set up (now), not set up by anyone yet, or not there at all. */
export type FleetDatabaseState = 'ready' | 'empty' | 'missing';

/**
 * Makes the fleet's database ready, safely when any number of workers and clients arrive at once on an empty server:
 * each takes one advisory lock in the server's `postgres` database (`withSetupLock`: whatever the fleet's database is,
 * the `postgres` one included, no waiter holds up DBOS's `CREATE INDEX CONCURRENTLY`) and, holding it, creates the
 * database when missing, runs DBOS's migrations (`migrate`), creates ralph's tables and records the fleet schema. The
 * others wait for the lock and find everything done; nothing else a worker or client does at start changes the
 * schema (DBOS launches with `runMigrations: false`, and its client migrates nothing). A database set up by a ralph-machine of another fleet schema is refused
 * (a RalphError, refused) before anything in it is changed.
 *
 * In `read` mode (the read-only commands) it waits for a setup in progress the same way, but creates and migrates
 * nothing: a database that is not there is `missing`, one nobody set up yet `empty`.
 */
export async function prepareFleetDatabase(
  databaseUrl: string,
  migrate: () => Promise<void>,
  what: string,
  mode: 'set-up' | 'read' = 'set-up',
): Promise<FleetDatabaseState> {
  return withSetupLock(databaseUrl, async (admin, name) => {
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rows.length === 0) {
      if (mode === 'read') return 'missing';
      await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    }
    const pool = createPgPool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
    pool.on('error', () => {});
    try {
      const found = await foundSchema(pool);
      if (found.kind === 'other') throw otherSchemaRefused(what, databaseUrl, found);
      if (mode === 'read') return found.kind === 'current' ? 'ready' : 'empty';
      await silenced(migrate);
      await new LeaseTable(pool).ensure();
      await new RunEventTable(pool).ensure();
      await ensureQueueWakeTrigger(pool);
      if (found.kind === 'empty') {
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version integer NOT NULL, ralph_version text NOT NULL)`,
        );
        await pool.query(`INSERT INTO ${SCHEMA_TABLE} VALUES ($1, $2)`, [
          FLEET_SCHEMA_VERSION,
          ralphVersion(),
        ]);
      }
      return 'ready';
    } finally {
      await pool.end().catch(() => {});
    }
  });
}
