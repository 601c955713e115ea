import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { AGENT_COMMAND, ralph, startWorker, stopWorker, useFleetScene, waitFor } from './harness.js';

const scene = useFleetScene();

const DAY_MS = 86_400_000;

describe('ralph prune', () => {
  it('deletes old ended runs and whole ended batches; keeps recent, running, queued and parked runs', async () => {
    const url = scene.databaseFor('prune');
    const worker = await startWorker(url, 'pruner', {
      env: { FLEET_AGENT_ROUNDS: '1', FLEET_AGENT_HOLD_ROUND: '1' },
    });
    scene.processes.push(worker);
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const pool = createPgPool({ connectionString: url, max: 1 });
    scene.fleets.push({ close: () => pool.end() });
    const submit = async (objective: string, released: boolean) => {
      const ws = await scene.workspace();
      if (released) await ws.release();
      const runId = await fleet.submit({ objective, agent: { agentCommand: AGENT_COMMAND }, cwd: ws.dir });
      return { runId, ws };
    };
    const ended = async (objective: string) => {
      const { runId } = await submit(objective, true);
      expect((await fleet.wait(runId, { pollMs: 100 })).state).toBe('complete');
      return runId;
    };
    const oldOne = await ended('Old one');
    const oldTwo = await ended('Old two');
    const recent = await ended('Recent');
    // Held in its round by its agent: running. The worker (concurrency 1) is busy, so the next one stays queued.
    const held = await submit('Running', false);
    await waitFor(() => held.ws.holders(1).length > 0, 'the held round');
    const queued = (await submit('Queued', true)).runId;

    // Rows as a run parked for an answer, and two batches, leave them (copies of an ended run): batch b1 has a task
    // still to run, so it is kept whole; batch b2 (a task's run and its landing) has ended.
    const copy = async (id: string, status: string, name = 'ralphRun') => {
      for (const table of ['workflow_status', 'workflow_input', 'workflow_output']) {
        const fields =
          table === 'workflow_status'
            ? `'workflow_uuid', $2::text, 'status', $3::text, 'name', $4::text, 'delay_until_epoch_ms', $5::bigint`
            : `'workflow_uuid', $2::text`;
        const extra = table === 'workflow_status' ? [status, name, Date.now() + 365 * DAY_MS] : [];
        await pool.query(
          `INSERT INTO dbos.${table} SELECT (jsonb_populate_record(t, jsonb_build_object(${fields}))).*
             FROM dbos.${table} t WHERE workflow_uuid = $1`,
          [oldOne, id, ...extra],
        );
      }
    };
    await copy('parked-run', 'DELAYED');
    await copy('b1.first', 'SUCCESS');
    await copy('b1.second', 'DELAYED');
    await copy('b2.only', 'SUCCESS');
    await copy('b2.only.land', 'SUCCESS', 'ralphLanding');
    const aged = [
      oldOne,
      oldTwo,
      held.runId,
      queued,
      'parked-run',
      'b1.first',
      'b1.second',
      'b2.only',
      'b2.only.land',
    ];
    await pool.query(
      `UPDATE dbos.workflow_status SET created_at = created_at - $2::bigint, updated_at = updated_at - $2::bigint
        WHERE workflow_uuid = ANY($1::text[])`,
      [aged, 2 * DAY_MS],
    );
    const rowsOf = async (ids: string[]) => {
      const { rows } = await pool.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM dbos.workflow_status WHERE workflow_uuid = ANY($1::text[]))
              + (SELECT count(*) FROM dbos.operation_outputs WHERE workflow_uuid = ANY($1::text[]))
              + (SELECT count(*) FROM dbos.workflow_input WHERE workflow_uuid = ANY($1::text[]))
              + (SELECT count(*) FROM ralph_fleet_run_events WHERE run_id = ANY($1::text[])) AS n`,
        [ids],
      );
      return Number(rows[0]?.n);
    };
    const pruned = [oldOne, oldTwo, 'b2.only', 'b2.only.land'];
    const before = await rowsOf(pruned);
    expect(before).toBeGreaterThan(8);

    const prune = (...args: string[]) => ralph(['prune', ...args, '--database-url', url]);
    const lines = (verb: string) =>
      [
        `${verb} run ${oldOne}`,
        `${verb} run ${oldTwo}`,
        `${verb} batch b2 (2 workflows: its tasks' runs and landings)`,
      ].sort();
    const dry = await prune('--older-than', '1d', '--dry-run');
    expect(dry.code).toBe(0);
    const dryLines = dry.stdout.trimEnd().split('\n');
    expect(dryLines.slice(0, -1).sort()).toEqual(lines('would prune'));
    expect(dryLines.at(-1)).toBe(
      'ralph prune: would prune 2 runs and 1 batch that ended more than 1d ago (--dry-run: nothing was deleted)',
    );
    expect(await rowsOf(pruned)).toBe(before);

    const done = await prune('--older-than', '36h');
    expect(done.code).toBe(0);
    const doneLines = done.stdout.trimEnd().split('\n');
    expect(doneLines.slice(0, -1).sort()).toEqual(lines('pruned'));
    expect(doneLines.at(-1)).toBe(
      'ralph prune: pruned 2 runs and 1 batch that ended more than 1d 12h ago; runs that have not ended are kept',
    );
    expect(await rowsOf(pruned)).toBe(0);
    expect(await rowsOf([recent])).toBeGreaterThan(2);

    const listed = await ralph(['runs', '--limit', '50', '--json', '--database-url', url]);
    expect(listed.code).toBe(0);
    const states = Object.fromEntries(
      JSON.parse(listed.stdout).runs.map((run: { runId: string; state: string }) => [run.runId, run.state]),
    );
    expect(states).toEqual({
      [recent]: 'complete',
      [held.runId]: 'running',
      [queued]: 'queued',
      'parked-run': 'queued',
      'b1.first': 'complete',
      'b1.second': 'queued',
    });

    // The running run ends now, and the queued one after it: nothing has ended an hour ago any more.
    await held.ws.release();
    for (const runId of [held.runId, queued]) {
      expect((await fleet.wait(runId, { pollMs: 100 })).state).toBe('complete');
    }
    const again = await prune('--older-than', '1h');
    expect([again.code, again.stdout]).toEqual([
      0,
      'ralph prune: no run or batch ended more than 1h ago; nothing pruned\n',
    ]);
    await stopWorker(worker);
  }, 120_000);

  it('refuses a duration that is none (exit 2), before it asks the database', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none';
    const cases: [string, string][] = [
      ['soon', '--older-than must be a duration such as 90s, 30m or 2h (got "soon")'],
      ['0', '--older-than must be more than 0 (got "0")'],
      ['36501d', '--older-than must be at most 36500d (got "36501d")'],
    ];
    for (const [given, message] of cases) {
      const refused = await ralph(['prune', '--older-than', given, '--database-url', url]);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([2, '', `${message}\n`]);
    }
  });

  it('creates no database: a URL naming none is an error (exit 1)', async () => {
    const url = scene.databaseFor('never_made');
    const missing = await ralph(['prune', '--older-than', '30d', '--database-url', url]);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([
      1,
      '',
      `ralph prune: there is no database at ${url}; is the URL right?\n`,
    ]);
    const empty = scene.databaseFor('postgres');
    const nothing = await ralph(['prune', '--older-than', '30d', '--database-url', empty]);
    expect([nothing.code, nothing.stdout]).toEqual([
      0,
      'ralph prune: no run or batch ended more than 30d ago; nothing pruned\n',
    ]);
  });
});
