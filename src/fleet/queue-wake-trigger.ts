import type { PgPool } from './pg-pool.js';

/**
 * The channel a run's enqueue is announced on: DBOS's own notifications channel, which every worker's DBOS already
 * LISTENs on (one connection per worker, whatever ralph adds), and whose handler calls the callbacks registered for
 * a payload. A payload DBOS never registers itself keeps the announcement to ralph's callbacks.
 */
export const QUEUE_WAKE_CHANNEL = 'dbos_notifications_channel';

const PAYLOAD_PREFIX = 'ralph-queue::';

/** The payload that announces a run enqueued on `queue`. */
export function queueWakePayload(queue: string): string {
  return `${PAYLOAD_PREFIX}${queue}`;
}

const TRIGGER = 'ralph_wake_queue';

/**
 * Makes every enqueue announce itself: a trigger on DBOS's workflow_status NOTIFYs when a row becomes ENQUEUED on a
 * queue, whoever wrote it (a submit, a batch, an answer waking a parked run, a takeover's resume, DBOS's own
 * delayed-workflow transition). A NOTIFY is sent at commit, so no worker is woken before the row is there to take,
 * and Postgres folds a transaction's identical NOTIFYs into one (a batch of runs wakes each worker once).
 * Idempotent; run under the setup lock. Workers of a release without the wake ignore the announcements.
 */
export async function ensureQueueWakeTrigger(pool: PgPool): Promise<void> {
  const { rows } = await pool.query(
    `SELECT 1 FROM pg_trigger WHERE tgname = $1 AND tgrelid = 'dbos.workflow_status'::regclass`,
    [TRIGGER],
  );
  if (rows.length > 0) return;
  await pool.query(
    `CREATE OR REPLACE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_notify('${QUEUE_WAKE_CHANNEL}', '${PAYLOAD_PREFIX}' || NEW.queue_name);
       RETURN NULL;
     END $$`,
  );
  await pool.query(
    `CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OF status ON dbos.workflow_status FOR EACH ROW
       WHEN (NEW.status = 'ENQUEUED' AND NEW.queue_name IS NOT NULL) EXECUTE FUNCTION ${TRIGGER}()`,
  );
}
