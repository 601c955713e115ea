import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import {
  FLEET_RECORDING_FAILED,
  MAX_PENDING_BYTES,
  RunEventTable,
  runEventSink,
} from '../../src/fleet/run-events.js';
import { useFleetScene } from './harness.js';

const scene = useFleetScene();

/** A pool and the run events table in a database of its own on the scene's server. */
async function eventTable(name: string) {
  const admin = createPgPool({ connectionString: scene.databaseFor('postgres'), max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const pool = createPgPool({
    connectionString: scene.databaseFor(name),
    max: 1,
    connectionTimeoutMillis: 1_000,
  });
  pool.on('error', () => {});
  const table = new RunEventTable(pool);
  await table.ensure();
  return { pool, table };
}

describe("a fleet run's recording in the database", () => {
  it('keeps the lines written while the database is away and writes them, in order, once it is back', async () => {
    const { pool, table } = await eventTable('run_events_outage');
    try {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.message);
      process.on('warning', onWarning);
      const sink = runEventSink(table, 'run-1');
      sink.write('{"type":"@ralph.recording"}\n');
      sink.write('{"line":2}\n');
      await sink.flush();
      await scene.pg.stop();
      sink.write('{"line":3}\n');
      sink.write('{"line":4}\n');
      await sink.flush();
      await scene.pg.start();
      sink.write('{"line":5}\n');
      await sink.flush();
      process.off('warning', onWarning);
      const rows = await table.since('run-1', 0);
      expect(rows.map((row) => [row.seq, row.line])).toEqual([
        [1, '{"type":"@ralph.recording"}'],
        [2, '{"line":2}'],
        [3, '{"line":3}'],
        [4, '{"line":4}'],
        [5, '{"line":5}'],
      ]);
      expect(warnings).toEqual([]);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('stops, with one warning, rather than hold more than MAX_PENDING_BYTES while the database is away', async () => {
    const { pool, table } = await eventTable('run_events_bounded');
    try {
      const warnings: { code?: string; message: string }[] = [];
      const onWarning = (warning: Error & { code?: string }) => warnings.push(warning);
      process.on('warning', onWarning);
      const sink = runEventSink(table, 'run-3');
      sink.write('header');
      await sink.flush();
      await scene.pg.stop();
      const big = 'x'.repeat(1024 * 1024);
      for (let n = 0; n < MAX_PENDING_BYTES / big.length + 2; n += 1) sink.write(big);
      await scene.pg.start();
      sink.write('after');
      await sink.flush();
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
      expect(warnings.map((warning) => warning.code)).toEqual([FLEET_RECORDING_FAILED]);
      expect(warnings[0]?.message).toMatch(
        /^Ralph fleet run run-3: its recording in the database stopped: more than/,
      );
      expect((await table.since('run-3', 0)).map((row) => row.line)).toEqual(['header']);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('forgets an earlier execution of the run when a new one records its header', async () => {
    const { pool, table } = await eventTable('run_events_again');
    try {
      const first = runEventSink(table, 'run-2');
      for (const line of ['header 1', 'a', 'b', 'c']) first.write(line);
      await first.flush();
      const again = runEventSink(table, 'run-2');
      for (const line of ['header 2', 'a']) again.write(line);
      await again.flush();
      expect((await table.since('run-2', 0)).map((row) => row.line)).toEqual(['header 2', 'a']);
    } finally {
      await pool.end();
    }
  });
});
