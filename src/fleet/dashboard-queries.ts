import type { RalphUsage } from '../contract/usage.js';
import type { FleetRunState } from './client.js';
import { FLEET_WORKFLOW, LEASE_TABLE } from './constants.js';
import { isRoundStep, recordedUsage } from './durable-provider.js';
import { type FleetQuestion, fleetQuestionOf, QUESTION_EVENT, storedJson } from './fleet-question.js';
import type { PgPool } from './pg-pool.js';
import { type FleetRunSandbox, runSandboxOf } from './run-sandbox.js';

/** How many runs one page of the dashboard holds at most. */
export const MAX_PAGE_SIZE = 200;

/** How much of a run's objective a row of the list carries (its own page has all of it). */
const OBJECTIVE_CHARS = 500;

/** The states a run can be filtered by: a FleetRunState. */
export const RUN_STATES: readonly FleetRunState[] = [
  'queued',
  'running',
  'complete',
  'blocked',
  'budget-limited',
  'failed',
  'refused',
  'cancelled',
  'error',
];

/** How many of an evaluation's findings a row of the list carries, and how much of each (its page has them all). */
const LISTED_FINDINGS = 5;
const FINDING_CHARS = 300;

/** The last verdict of a run's independent evaluator, as a row of the list shows it (from the run's envelope). */
export interface DashboardEvaluation {
  /** The evaluator provider's name. */
  evaluator: string;
  /** The round whose reported completion it judged. */
  round: number;
  verdict: 'accept' | 'reject';
  /** How many findings it gave. */
  findingCount: number;
  /** Its first LISTED_FINDINGS findings, each its first FINDING_CHARS characters. */
  findings: string[];
}

/** One run as a row of the dashboard's list. Times are milliseconds since the epoch. */
export interface DashboardRun {
  runId: string;
  state: FleetRunState;
  /** The worker that runs, or last ran, it (none while queued before any took it). */
  workerId: string | null;
  /** The objective, its first OBJECTIVE_CHARS characters (null when the input had none). */
  objective: string | null;
  roundsDone: number;
  usage: RalphUsage | null;
  createdAt: number;
  /** When a worker first took it; null while queued. */
  startedAt: number | null;
  /** When it settled; null while it goes. */
  endedAt: number | null;
  /** The last verdict of its independent evaluator, when it settled after one gave it; null otherwise. */
  evaluation: DashboardEvaluation | null;
  /** Whether it ran sandboxed (as `ralph status` says it); null when it asked for no sandbox and had none. */
  sandbox: FleetRunSandbox | null;
  /** The question it waits on for a person's answer (`ralph submit --ask`); null when it waits for none. */
  question: FleetQuestion | null;
}

/** One page of runs, and the cursor of the next (null on the last page). */
export interface DashboardRunPage {
  runs: DashboardRun[];
  next: string | null;
}

/** A worker as the dashboard lists it. */
export interface DashboardWorker {
  workerId: string;
  hostname: string;
  pid: number;
  /** Whether its lease is live, by the database's clock. */
  live: boolean;
  leaseUntil: number;
  /** Its last heartbeat: when it last renewed its lease. */
  lastHeartbeat: number;
  /** The runs it is running now. */
  runsHeld: number;
}

/** A stored DBOS value as JSON: SuperJSON's `json` part (DBOS's default serializer), or the portable JSON itself. */
const value = (column: string) =>
  `(CASE WHEN ${column}::jsonb ? '__dbos_serializer' THEN ${column}::jsonb -> 'json' ELSE ${column}::jsonb END)`;

/** A run's output and its input, where DBOS keeps them (their own tables; workflow_status before those were). */
const OUTPUT =
  'coalesce((SELECT o.output FROM dbos.workflow_output o WHERE o.workflow_uuid = w.workflow_uuid), w.output)';
const INPUTS =
  'coalesce((SELECT i.inputs FROM dbos.workflow_input i WHERE i.workflow_uuid = w.workflow_uuid), w.inputs)';

/** The question a run that goes publishes while it waits for an answer: the event's text, parsed and checked in JS. */
const QUESTION = `(SELECT e.value FROM dbos.workflow_events e
  WHERE e.workflow_uuid = w.workflow_uuid AND e.key = '${QUESTION_EVENT}' AND w.status IN ('ENQUEUED', 'DELAYED', 'PENDING'))`;

/**
 * A run's FleetRunState computed in SQL, so the list can be filtered by it: the same mapping as the fleet client's own
 * (client.ts, stateOf), which `ralph status` prints. Only a settled run's output is read.
 */
const STATE = `CASE w.status
  WHEN 'ENQUEUED' THEN 'queued' WHEN 'DELAYED' THEN 'queued'
  WHEN 'PENDING' THEN 'running'
  WHEN 'CANCELLED' THEN 'cancelled'
  WHEN 'SUCCESS' THEN (SELECT CASE
      WHEN o ->> 'ok' = 'true' THEN o -> 'envelope' -> 'result' ->> 'status'
      WHEN o ->> 'ok' = 'false' THEN CASE o -> 'failure' ->> 'code'
        WHEN 'refused' THEN 'refused' WHEN 'cancelled' THEN 'cancelled' ELSE 'failed' END
      ELSE 'error' END FROM (SELECT ${value(OUTPUT)} AS o) AS decoded)
  ELSE 'error' END`;

/** The run's objective, its first OBJECTIVE_CHARS characters. */
const OBJECTIVE = `(SELECT left(coalesce(i -> 0, i -> 'positionalArgs' -> 0) ->> 'objective', ${OBJECTIVE_CHARS})
  FROM (SELECT ${value(INPUTS)} AS i) AS decoded)`;

/** Whether the run's input asks for the sandbox (`ralph submit --sandbox`). */
const SANDBOX_ASKED = `(SELECT coalesce(i -> 0, i -> 'positionalArgs' -> 0) ? 'sandbox'
  FROM (SELECT ${value(INPUTS)} AS i) AS decoded)`;

/**
 * The last verdict of a settled run's evaluator (its envelope's `result.evaluation`), its findings bounded; null for a
 * run without one, and for one that has not settled (whose output is not read).
 */
const EVALUATION = `(SELECT CASE WHEN jsonb_typeof(e) = 'object' AND jsonb_typeof(e -> 'findings') = 'array' THEN
    jsonb_build_object('evaluator', e ->> 'evaluator', 'round', e -> 'round', 'verdict', e ->> 'verdict',
      'findingCount', jsonb_array_length(e -> 'findings'),
      'findings', (SELECT coalesce(jsonb_agg(left(f, ${FINDING_CHARS}) ORDER BY n), '[]'::jsonb)
        FROM jsonb_array_elements_text(e -> 'findings') WITH ORDINALITY AS listed(f, n) WHERE n <= ${LISTED_FINDINGS}))
  END FROM (SELECT CASE WHEN w.status = 'SUCCESS' THEN ${value(OUTPUT)} -> 'envelope' -> 'result' -> 'evaluation' END AS e)
  AS decoded)`;

/**
 * The DBOS statuses a run in `state` can have: a condition on the status column alone (which DBOS's partial indexes
 * serve), checked before the state itself is computed.
 */
function statusesOf(state: FleetRunState): string {
  switch (state) {
    case 'queued':
      return "w.status IN ('ENQUEUED', 'DELAYED')";
    case 'running':
      return "w.status = 'PENDING'";
    case 'cancelled':
      return "w.status IN ('CANCELLED', 'SUCCESS')";
    case 'error':
      return "w.status NOT IN ('ENQUEUED', 'DELAYED', 'PENDING', 'CANCELLED')";
    default:
      return "w.status = 'SUCCESS'";
  }
}

/** What a run's recorded steps say: its rounds, their usage, and the steps (for what the sandbox counts). */
interface RecordedRounds {
  roundsDone: number;
  usage: RalphUsage | null;
  steps: { name: string; output: unknown }[];
}

interface RunRow {
  id: string;
  state: FleetRunState;
  executor_id: string | null;
  objective: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  evaluation: DashboardEvaluation | null;
  sandbox_asked: boolean | null;
  question: string | null;
}

/** The cursor of the row after which the next page starts: its creation time and id. */
const cursorOf = (row: RunRow): string =>
  Buffer.from(JSON.stringify([Number(row.created_at), row.id])).toString('base64url');

/** A cursor read back, or undefined when it is none. */
function readCursor(cursor: string): [number, string] | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && Number.isSafeInteger(parsed[0]) && typeof parsed[1] === 'string')
      return [parsed[0] as number, parsed[1]];
  } catch {
    // not a cursor
  }
  return undefined;
}

/**
 * The queries of `ralph dashboard`: small, indexed reads of DBOS's tables and ralph's, so a fleet of a hundred
 * thousand runs shows a page of them as fast as a fleet of ten.
 */
export class DashboardQueries {
  constructor(private readonly pool: PgPool) {}

  /** Whether DBOS's tables are there (a fleet nobody set up yet has none: nothing to show). */
  async ready(): Promise<boolean> {
    const { rows } = await this.pool.query<{ found: boolean }>(
      "SELECT to_regclass('dbos.workflow_status') IS NOT NULL AS found",
    );
    return rows[0]?.found === true;
  }

  /**
   * A page of runs, newest first, with `state` only those in it, after `cursor` (the previous page's `next`):
   * keyset paging over the created_at index, so no page reads the runs before it.
   */
  async runs({
    state,
    cursor,
    limit,
  }: {
    state?: FleetRunState;
    cursor?: string;
    limit: number;
  }): Promise<DashboardRunPage> {
    const after = cursor === undefined ? undefined : readCursor(cursor);
    const size = Math.min(Math.max(1, Math.floor(limit)), MAX_PAGE_SIZE);
    const values: unknown[] = [FLEET_WORKFLOW, size + 1];
    const where = ['w.name = $1'];
    if (after !== undefined) {
      values.push(after[0], after[1]);
      // Written so that the created_at index bounds the scan; the id breaks ties within one millisecond.
      where.push('w.created_at <= $3 AND (w.created_at < $3 OR w.workflow_uuid < $4)');
    }
    if (state !== undefined) {
      values.push(state);
      where.push(`${statusesOf(state)} AND (${STATE}) = $${values.length}`);
    }
    // Walked newest first along the created_at index, each row's output and input read only for the rows returned.
    const { rows } = await this.pool.query<RunRow>(
      `SELECT w.workflow_uuid AS id, ${STATE} AS state, NULLIF(w.executor_id, '') AS executor_id,
         ${OBJECTIVE} AS objective, w.created_at, w.started_at_epoch_ms AS started_at,
         CASE WHEN w.status IN ('ENQUEUED', 'DELAYED', 'PENDING') THEN NULL
           ELSE coalesce(w.completed_at, w.updated_at) END AS ended_at, ${EVALUATION} AS evaluation,
         ${SANDBOX_ASKED} AS sandbox_asked, ${QUESTION} AS question
       FROM dbos.workflow_status w
       WHERE ${where.join(' AND ')}
       ORDER BY w.created_at DESC, w.workflow_uuid DESC
       LIMIT $2`,
      values,
    );
    const shown = rows.slice(0, size);
    const rounds = await this.rounds(shown.map((row) => row.id));
    const last = shown.at(-1);
    return {
      runs: shown.map((row) => {
        const done = rounds.get(row.id) ?? { roundsDone: 0, usage: null, steps: [] };
        return {
          runId: row.id,
          state: row.state,
          workerId: row.state === 'queued' ? null : row.executor_id,
          objective: row.objective,
          roundsDone: done.roundsDone,
          usage: done.usage,
          createdAt: Number(row.created_at),
          startedAt: row.started_at === null ? null : Number(row.started_at),
          endedAt: row.ended_at === null ? null : Number(row.ended_at),
          evaluation: row.evaluation,
          sandbox: runSandboxOf(row.sandbox_asked === true, done.steps) ?? null,
          question: row.question === null ? null : fleetQuestionOf(storedJson(row.question)),
        };
      }),
      next: rows.length > size && last !== undefined ? cursorOf(last) : null,
    };
  }

  /** How many runs are in each DBOS status group (queued, running, ended, cancelled, error): one cheap count. */
  async counts(): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ group: string; count: string }>(
      `SELECT CASE status WHEN 'ENQUEUED' THEN 'queued' WHEN 'DELAYED' THEN 'queued' WHEN 'PENDING' THEN 'running'
           WHEN 'SUCCESS' THEN 'ended' WHEN 'CANCELLED' THEN 'cancelled' ELSE 'error' END AS "group",
         count(*) AS count
       FROM dbos.workflow_status WHERE name = $1 GROUP BY 1`,
      [FLEET_WORKFLOW],
    );
    return Object.fromEntries(rows.map((row) => [row.group, Number(row.count)]));
  }

  /**
   * The rounds recorded of these runs, what their agents and evaluators said they used (as `ralph status` counts them),
   * and the steps themselves as far as the sandbox goes (whether each round's child ran in one).
   */
  private async rounds(runIds: readonly string[]): Promise<Map<string, RecordedRounds>> {
    const found = new Map<string, RecordedRounds>();
    if (runIds.length === 0) return found;
    const { rows } = await this.pool.query<{
      id: string;
      name: string;
      ok: boolean | null;
      usage: unknown;
      sandboxed: boolean | null;
    }>(
      `SELECT s.workflow_uuid AS id, s.function_name AS name, (${value('s.output')} ->> 'ok') = 'true' AS ok,
         ${value('s.output')} -> 'usage' AS usage, (${value('s.output')} ->> 'sandboxed') = 'true' AS sandboxed
       FROM dbos.operation_outputs s
       WHERE s.workflow_uuid = ANY($1::text[]) AND (s.function_name LIKE 'round-%' OR s.function_name LIKE 'evaluate-%')
         AND s.output IS NOT NULL`,
      [runIds],
    );
    const steps = new Map<string, { name: string; output: unknown }[]>();
    for (const row of rows) {
      const list = steps.get(row.id) ?? [];
      const output = {
        ok: row.ok === true,
        usage: row.usage,
        ...(row.sandboxed === true ? { sandboxed: true } : {}),
      };
      list.push({ name: row.name, output });
      steps.set(row.id, list);
    }
    // An evaluation's spend counts as `ralph status` counts it; only the rounds are rounds.
    for (const [id, list] of steps)
      found.set(id, {
        roundsDone: list.filter((step) => isRoundStep(step.name)).length,
        usage: recordedUsage(list),
        steps: list,
      });
    return found;
  }

  /** Every worker's lease, its last heartbeat and how many runs it runs now. */
  async workers(): Promise<DashboardWorker[]> {
    const { rows } = await this.pool.query<{
      worker_id: string;
      hostname: string;
      pid: number;
      live: boolean;
      lease_until: string;
      heartbeat: string;
      held: string;
    }>(
      `SELECT l.worker_id, l.hostname, l.pid, l.lease_until >= now() AS live,
         (extract(epoch from l.lease_until) * 1000)::bigint AS lease_until,
         (extract(epoch from l.lease_until - l.lease_ms * interval '1 millisecond') * 1000)::bigint AS heartbeat,
         coalesce(h.held, 0) AS held
       FROM ${LEASE_TABLE} l
       LEFT JOIN (SELECT executor_id, count(*) AS held FROM dbos.workflow_status
                  WHERE status = 'PENDING' AND name = $1 GROUP BY executor_id) h ON h.executor_id = l.worker_id
       ORDER BY l.worker_id`,
      [FLEET_WORKFLOW],
    );
    return rows.map((row) => ({
      workerId: row.worker_id,
      hostname: row.hostname,
      pid: row.pid,
      live: row.live,
      leaseUntil: Number(row.lease_until),
      lastHeartbeat: Number(row.heartbeat),
      runsHeld: Number(row.held),
    }));
  }
}
