import { FLEET_QUEUE } from './constants.js';
import { fleetQuestionOf, QUESTION_EVENT, storedJson } from './fleet-question.js';
import type { PgPoolClient, PgTransactionPool } from './pg-pool.js';

/**
 * A run that waits for an answer holds no worker slot: it parks. DBOS counts a workflow against its worker's queue
 * concurrency while its function runs (a `recv` included), so the run's workflow leaves its row DELAYED until the
 * wait's deadline, and its function ends without an outcome (DBOS then releases the slot, and records nothing: the
 * row is no longer its execution's). When the deadline passes DBOS enqueues it again; an answer enqueues it at once.
 * Any worker then replays it from its steps up to the wait, where the answer (or the deadline) is waiting.
 * The two sides lock the run's row first, so an answer sent while the run parks either stops the park or wakes it.
 */

/** Runs `body` in a transaction on one of the pool's connections, with the run's status row locked. */
async function withRunLocked<T>(
  pool: PgTransactionPool,
  runId: string,
  body: (client: PgPoolClient, status: string | undefined) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ status: string }>(
      'SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1 FOR UPDATE',
      [runId],
    );
    const result = await body(client, rows[0]?.status);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Parks the running run `runId` until `deadline` unless a message on `topic` (this question's answer, taken or not)
 * is there already or the deadline passed: resolves with whether it parked (its execution must then end).
 */
export function parkRun(
  pool: PgTransactionPool,
  runId: string,
  topic: string,
  deadline: number,
): Promise<boolean> {
  return withRunLocked(pool, runId, async (client, status) => {
    if (status !== 'PENDING' || deadline <= Date.now()) return false;
    const sent = await client.query(
      'SELECT 1 FROM dbos.notifications WHERE destination_uuid = $1 AND topic = $2 LIMIT 1',
      [runId, topic],
    );
    if (sent.rows.length > 0) return false;
    // Not a crash: its recovery attempts start again, so a run that asks many times is never dead-lettered for it.
    await client.query(
      `UPDATE dbos.workflow_status SET status = 'DELAYED', delay_until_epoch_ms = $2, owner_xid = NULL,
         queue_name = $3, recovery_attempts = 0, updated_at = (EXTRACT(epoch FROM now()) * 1000)::bigint
       WHERE workflow_uuid = $1 AND status = 'PENDING'`,
      [runId, deadline, FLEET_QUEUE],
    );
    return true;
  });
}

/**
 * Sends a run its answer on `topic` (`send`, in the transaction) and wakes it if it is parked: its row goes back to
 * the queue at once, for any worker to take. Resolves false, sending nothing, when the question has its answer already.
 */
export function sendAndWake(
  pool: PgTransactionPool,
  runId: string,
  topic: string,
  send: (client: PgPoolClient) => Promise<void>,
): Promise<boolean> {
  return withRunLocked(pool, runId, async (client) => {
    const sent = await client.query(
      'SELECT 1 FROM dbos.notifications WHERE destination_uuid = $1 AND topic = $2 LIMIT 1',
      [runId, topic],
    );
    if (sent.rows.length > 0) return false;
    await send(client);
    // Enqueued here, as DBOS's delayed-workflow transition would do it on its next pass: the enqueue wakes the
    // fleet's idle workers at once (queue-wake-trigger.ts), and an idle worker's transition runs seconds apart.
    await client.query(
      `UPDATE dbos.workflow_status SET status = 'ENQUEUED', delay_until_epoch_ms = 0,
         updated_at = (EXTRACT(epoch FROM now()) * 1000)::bigint
       WHERE workflow_uuid = $1 AND status = 'DELAYED'`,
      [runId],
    );
    return true;
  });
}

/**
 * The round whose question the run publishes now, read as an execution of it starts: one woken by its answer (or
 * taken over while it waited) asks that question again as it replays, which is not news to tell anyone.
 */
export async function publishedQuestionRound(
  pool: PgTransactionPool,
  runId: string,
): Promise<number | undefined> {
  const { rows } = await pool.query<{ value: string }>(
    'SELECT value FROM dbos.workflow_events WHERE workflow_uuid = $1 AND key = $2',
    [runId, QUESTION_EVENT],
  );
  const stored = rows[0]?.value;
  return stored === undefined ? undefined : fleetQuestionOf(storedJson(stored))?.round;
}
