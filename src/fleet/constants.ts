/** The DBOS application every ralph worker and client belongs to: it scopes the queue and the workflows. */
export const FLEET_APP_NAME = 'ralph-machine';

/** The DBOS queue runs are submitted to and workers take them from. */
export const FLEET_QUEUE = 'ralph-runs';

/** The name a run's workflow is registered and enqueued under. */
export const FLEET_WORKFLOW = 'ralphRun';

/**
 * The pinned DBOS application version. DBOS recovers only workflows of the version a worker runs, and by default it
 * hashes the workflow's source, so any rebuild would orphan every pending run: pinned, it changes only when a run's
 * sequence of steps does (one step per round, named `round-N`), which is when old runs could no longer be replayed.
 * 3 added the evaluator (`ralph submit --evaluator`): its child is a step `evaluate-N` after the round it judges, and
 * a worker of version 2 would run such a run without it (completing on its worker's word alone) or fail to replay it.
 * 4 added the sandbox (`ralph submit --sandbox`, `ralph worker --sandbox`): a round's step records whether its child
 * ran in one, and a worker of version 3 would run a run that asks for the sandbox without it.
 * 5 added the wait for a person's answer (`ralph submit --ask`): a blocked round's run records when it began to wait
 * (`answer-wait-N`), publishes its question and receives the answer as a DBOS message; a worker of version 4 would
 * end such a run blocked at once.
 */
export const FLEET_APP_VERSION = 'ralph-fleet-5';

/**
 * The version of what ralph keeps in a fleet's database (its tables, and what a run's input and its rounds' steps
 * hold), recorded there by the first process that sets it up. 1 was the first release, which recorded none; 2 added
 * the record, the guard rails in a run's input and each round's usage in its step. A database of another version is
 * refused, and the application version changes with it, so a worker of another release never takes a run of this one.
 */
export const FLEET_SCHEMA_VERSION = 2;

/** The table that records which fleet schema, and which ralph-machine, set a fleet's database up. */
export const SCHEMA_TABLE = 'ralph_fleet_schema';

/** How long a worker's lease lasts without a heartbeat before other workers take its runs over (ms). */
export const DEFAULT_LEASE_MS = 30_000;

/** The shortest lease a worker accepts (ms): below it a busy machine would miss heartbeats. */
export const MIN_LEASE_MS = 1_000;

/** The table of worker leases, in the same database as DBOS's own tables. */
export const LEASE_TABLE = 'ralph_fleet_workers';

/** The DBOS queue of batch landings: partitioned by repository and target, one landing per partition at once. */
export const MERGE_QUEUE = 'ralph-merges';

/** The name a batch task's landing workflow is registered and enqueued under. */
export const LANDING_WORKFLOW = 'ralphLanding';

/**
 * How many Postgres connections a worker holds at most, whatever its concurrency (`ralph worker --db-connections`):
 * one pool for DBOS and ralph, of which DBOS keeps one for its LISTEN/NOTIFY client for the worker's life.
 */
export const DEFAULT_DB_CONNECTIONS = 3;

/**
 * The fewest connections a worker can run on: DBOS's LISTEN client holds one, and its start (a NOTIFY to itself to
 * check LISTEN works) and every query need another.
 */
export const MIN_DB_CONNECTIONS = 2;
