import { setTimeout as sleep } from 'node:timers/promises';
import { createPgSession, type PgSession } from './pg-pool.js';

/**
 * The key of the advisory lock every ralph process takes to set a fleet's database up (with the database's name as
 * the second key, so fleets on one server do not wait for each other).
 */
const SETUP_LOCK = 7_262_011;

/**
 * How long a process waiting for the set-up lock sleeps between tries. It tries (`pg_try_advisory_lock`) rather than
 * waits in Postgres because a waiting statement holds a snapshot of the database its session is in, and DBOS's
 * `CREATE INDEX CONCURRENTLY`, run by the lock's holder, waits for every older snapshot of its database to end: when
 * the lock's database is the fleet's own (a fleet on the server's `postgres` database), the holder's index build
 * would wait for the waiters, and they for the holder, for ever, unseen by the deadlock detector (the holder's lock is
 * on another session than its build). A try holds its snapshot for a moment only, and fails without an error.
 */
const LOCK_RETRY_MS = 100;

/** The database a URL names, and the URL of the same server's `postgres` database. */
export function maintenanceUrl(databaseUrl: string): { name: string; url: string } {
  const parsed = new URL(databaseUrl);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username);
  parsed.pathname = '/postgres';
  return { name, url: parsed.toString() };
}

/** Takes the set-up lock of the database `name` on `session`, trying again every LOCK_RETRY_MS until it has it. */
async function takeSetupLock(session: PgSession, name: string): Promise<void> {
  for (;;) {
    const { rows } = await session.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
      [SETUP_LOCK, name],
    );
    if (rows[0]?.locked === true) return;
    await sleep(LOCK_RETRY_MS);
  }
}

/**
 * Runs `body` holding the set-up lock of the fleet's database, on a session of its own in the server's `postgres`
 * database (the fleet's database may not exist yet), which `body` gets with the fleet database's name to create it.
 * The session is a connection of its own, not a pool's: a pool would close it once idle for a while, letting the
 * lock go in the middle of a set-up, and another process would then migrate the same database at the same time.
 */
export async function withSetupLock<T>(
  databaseUrl: string,
  body: (session: PgSession, name: string) => Promise<T>,
): Promise<T> {
  const { name, url } = maintenanceUrl(databaseUrl);
  const session = createPgSession({ connectionString: url, connectionTimeoutMillis: 5_000 });
  session.on('error', () => {});
  try {
    await session.connect();
    await takeSetupLock(session, name);
    return await body(session, name);
  } finally {
    // Ending the session releases the lock too; unlocking first lets the next process in at once.
    await session.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    await session.end().catch(() => {});
  }
}
