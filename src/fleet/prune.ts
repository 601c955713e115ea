import type { PrunedKind } from '../contract/prune-messages.js';
import { FLEET_APP_NAME, FLEET_WORKFLOW, LANDING_WORKFLOW } from './constants.js';
import { assertDatabaseReachable, FleetError, redactedUrl } from './database.js';
import { createPgPool } from './pg-pool.js';
import { RUN_EVENTS_TABLE, RunEventTable } from './run-events.js';
import { prepareFleetDatabase } from './schema.js';
import { loadDbos } from './sdk.js';

/** The longest age `ralph prune --older-than` takes: 100 years (anything older is no run of this fleet). */
export const MAX_PRUNE_AGE_MS = 36_500 * 86_400_000;

/**
 * The statuses of a DBOS workflow that has ended for good. Any other (PENDING: running; ENQUEUED: queued; DELAYED: a
 * run parked while it waits for a person's answer; one a later DBOS adds) is never pruned.
 */
const ENDED = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];

/** How many workflows one delete takes (one transaction of DBOS's each). */
const CHUNK = 500;

/** A run or a batch `pruneFleet` deleted (or would delete): its id and its workflows' ids. */
export interface PrunedUnit {
  kind: PrunedKind;
  id: string;
  workflows: string[];
}

/**
 * Deletes from a fleet's database every run, and every batch, that ended more than `olderThanMs` ago (by the
 * database's clock, from its last update: when it ended): DBOS's rows of each workflow (its status, input, output and
 * steps, and through their foreign keys its messages, events and streams), deleted by DBOS's own `deleteWorkflows`,
 * and ralph's (the run's recording lines, which `ralph dashboard` shows). A batch (runs `<batch>.<task>` and landings
 * `<batch>.<task>.land`) goes whole, once every workflow of it has ended and the last ended that long ago: a task that
 * waits on another still reads it. A run that has not ended (queued, running, parked for an answer) is never touched.
 * With `dryRun` nothing is deleted. Resolves with what was (or would be) pruned, oldest first; a FleetError when the
 * database cannot be reached or is not there.
 */
export async function pruneFleet({
  databaseUrl,
  olderThanMs,
  dryRun = false,
}: {
  databaseUrl: string;
  olderThanMs: number;
  dryRun?: boolean;
}): Promise<PrunedUnit[]> {
  const what = 'ralph prune';
  await assertDatabaseReachable(databaseUrl, what);
  const found = await prepareFleetDatabase(
    databaseUrl,
    async () => (await loadDbos()).DBOS.migrate(databaseUrl),
    what,
    'read',
  );
  if (found === 'missing')
    throw new FleetError(`${what}: there is no database at ${redactedUrl(databaseUrl)}; is the URL right?`);
  if (found === 'empty') return [];
  const pool = createPgPool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  try {
    // Grouped by the id before its first dot: a run's own id (a UUID has none), or a batch's id.
    const { rows } = await pool.query<{ unit: string; ids: string[]; batch: boolean }>(
      `SELECT split_part(workflow_uuid, '.', 1) AS unit, array_agg(workflow_uuid ORDER BY created_at) AS ids,
              bool_or(strpos(workflow_uuid, '.') > 0) AS batch
         FROM dbos.workflow_status WHERE name = ANY($1::text[])
        GROUP BY 1
       HAVING bool_and(status = ANY($2::text[]))
          AND max(updated_at) < (extract(epoch FROM now()) * 1000)::bigint - $3::bigint
        ORDER BY max(updated_at)`,
      [[FLEET_WORKFLOW, LANDING_WORKFLOW], ENDED, olderThanMs],
    );
    const units = rows.map(
      (row): PrunedUnit => ({
        kind: row.batch ? 'batch' : 'run',
        id: row.unit,
        workflows: row.ids,
      }),
    );
    if (dryRun || units.length === 0) return units;
    const events = (await new RunEventTable(pool).exists()) ? RUN_EVENTS_TABLE : undefined;
    const { DBOSClient } = await loadDbos();
    const client = await DBOSClient.create({
      systemDatabaseUrl: databaseUrl,
      applicationName: FLEET_APP_NAME,
    });
    try {
      const ids = units.flatMap((unit) => unit.workflows);
      for (let at = 0; at < ids.length; at += CHUNK) {
        const chunk = ids.slice(at, at + CHUNK);
        // ralph's rows first: should DBOS's delete then fail, a second prune finds the runs again and finishes.
        if (events !== undefined)
          await pool.query(`DELETE FROM ${events} WHERE run_id = ANY($1::text[])`, [chunk]);
        // Not their children: a ralph run starts none, and a landing is its batch's, deleted with it.
        await client.deleteWorkflows(chunk, false);
      }
    } finally {
      await client.destroy().catch(() => {});
    }
    return units;
  } finally {
    await pool.end().catch(() => {});
  }
}
