import { errorText } from '../contract/error-text.js';
import type { PgPool } from './pg-pool.js';

/** The table of each fleet run's recording lines (the run's inspection events), which `ralph dashboard` shows. */
export const RUN_EVENTS_TABLE = 'ralph_fleet_run_events';

/**
 * How many bytes of a run's recording may wait for the database at once: beyond that the recording of the run stops
 * (with one warning) rather than hold an unbounded buffer while the database is slow or away. The run goes on.
 */
export const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** The code of the warning a fleet run emits when its recording in the database stopped. */
export const FLEET_RECORDING_FAILED = 'RALPH_FLEET_RECORDING_FAILED';

/** The recording lines of fleet runs, in the fleet's database: one row per line, numbered from 1 (the header). */
export class RunEventTable {
  constructor(private readonly pool: PgPool) {}

  /** Creates the table when it is missing (added in place to a fleet set up before it: nothing else changes). */
  async ensure(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS ${RUN_EVENTS_TABLE} (
      run_id text NOT NULL,
      seq integer NOT NULL,
      line text NOT NULL,
      PRIMARY KEY (run_id, seq)
    )`);
  }

  /** Whether the table is there (a fleet set up by a release before it has none until a worker of this one starts). */
  async exists(): Promise<boolean> {
    const { rows } = await this.pool.query<{ found: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS found',
      [RUN_EVENTS_TABLE],
    );
    return rows[0]?.found === true;
  }

  /** Forgets the run's lines: a run executed again (taken over, recovered) records itself again from its header. */
  async reset(runId: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${RUN_EVENTS_TABLE} WHERE run_id = $1`, [runId]);
  }

  /** Adds lines numbered `first`, `first + 1`, … */
  async append(runId: string, first: number, lines: readonly string[]): Promise<void> {
    const seqs = lines.map((_, index) => first + index);
    await this.pool.query(
      `INSERT INTO ${RUN_EVENTS_TABLE} (run_id, seq, line)
       SELECT $1, s, l FROM unnest($2::integer[], $3::text[]) AS lines(s, l)
       ON CONFLICT (run_id, seq) DO NOTHING`,
      [runId, seqs, lines],
    );
  }

  /** The run's lines after line `after` (0: from the header), in order, at most `limit` of them. */
  async since(runId: string, after: number, limit = 1_000): Promise<{ seq: number; line: string }[]> {
    const { rows } = await this.pool.query<{ seq: number; line: string }>(
      `SELECT seq, line FROM ${RUN_EVENTS_TABLE} WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [runId, after, limit],
    );
    return rows;
  }
}

/** A recording sink that writes a fleet run's lines to its table, in order, as they come. */
export interface RunEventSink {
  write(line: string): void;
  /** Resolves once every line written so far is in the database (or the recording stopped). */
  flush(): Promise<void>;
}

/**
 * The sink of one execution of a run: its first write (the header) first forgets what an earlier execution of the
 * run recorded, then the lines go to the table in batches, one INSERT each. Lines the database did not take (it is
 * away) are kept and tried again with the next ones, so an outage costs the recording nothing, up to
 * MAX_PENDING_BYTES waiting: beyond that the recording stops with one process warning. The run never waits for it.
 */
export function runEventSink(table: RunEventTable, runId: string): RunEventSink {
  let pending: string[] = [];
  let pendingBytes = 0;
  let next = 1;
  let stopped = false;
  let lastError = '';
  let writing: Promise<void> = Promise.resolve();
  let scheduled = false;

  const drain = async () => {
    scheduled = false;
    if (stopped || pending.length === 0) return;
    const lines = pending;
    pending = [];
    try {
      if (next === 1) await table.reset(runId);
      await table.append(runId, next, lines);
      next += lines.length;
      pendingBytes -= lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    } catch (error) {
      // Kept, in order, for the next try.
      pending = [...lines, ...pending];
      lastError = errorText(error);
    }
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    writing = writing.then(drain);
  };

  return {
    write(line) {
      if (stopped) return;
      const text = line.endsWith('\n') ? line.slice(0, -1) : line;
      pendingBytes += Buffer.byteLength(text);
      if (pendingBytes > MAX_PENDING_BYTES) {
        stopped = true;
        pending = [];
        process.emitWarning(
          `Ralph fleet run ${runId}: its recording in the database stopped: more than ${MAX_PENDING_BYTES} bytes ` +
            `waited for the database${lastError === '' ? '' : ` (${lastError})`}; the run goes on`,
          { type: 'RalphWarning', code: FLEET_RECORDING_FAILED },
        );
        return;
      }
      pending.push(text);
      schedule();
    },
    flush() {
      schedule();
      return writing;
    },
  };
}
