import { createPgPool, type PgTransactionPool } from './pg-pool.js';

/** What pg_stat_activity shows of a worker's connections (`application_name`), to count them on the server. */
export const WORKER_APPLICATION_NAME = 'ralph worker';

/**
 * How long a query waits for a connection of the worker's pool, in line behind the others or connecting: long, since
 * a pool of 3 at concurrency 8 has the runs' steps take turns, and a wait that gave up would fail a step.
 */
const CONNECTION_WAIT_MS = 30_000;

/**
 * What a transaction left open may hold (ms), as DBOS sets on a pool of its own but not on one it is given: a step
 * stuck mid-transaction must not hold its row locks, and a connection of a pool this small, for ever.
 */
const IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * The one pool of a worker's Postgres connections, `max` at most, for DBOS (its system database pool: queue polling,
 * steps, messages, and one kept for its LISTEN client) and for ralph (leases, run events, parking): a worker holds no
 * other connection while it runs, whatever its concurrency. Nothing holds one connection while it waits for another
 * (DBOS's transactions and ralph's run their statements on the connection they hold), so runs waiting their turn
 * cannot deadlock the pool.
 */
export function createWorkerPool(databaseUrl: string, max: number): PgTransactionPool {
  const pool = createPgPool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
    application_name: WORKER_APPLICATION_NAME,
  });
  pool.on('error', () => {});
  // Queued ahead of the borrower's first statement, outside any transaction: it holds for the session.
  pool.on('connect', (client) => {
    client.query(`SET idle_in_transaction_session_timeout = ${IDLE_TRANSACTION_TIMEOUT_MS}`).catch(() => {});
  });
  return pool;
}
