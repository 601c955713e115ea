import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import {
  AGENT_COMMAND,
  ralph,
  spawnRalph,
  startWorker,
  stopWorker,
  useFleetScene,
  waitAllGone,
  waitFor,
} from './harness.js';

const scene = useFleetScene();

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("the fleet's database", () => {
  it('down at start: the worker and the client say so in one line and exit 1', async () => {
    const url = `postgres://ralph@127.0.0.1:${await closedPort()}/fleet`;
    const worker = await ralph(['worker', '--database-url', url, '--allow-agent-command']);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toMatch(
      /^ralph worker: cannot reach the database at postgres:\/\/ralph@127\.0\.0\.1:\d+\/fleet: .*ECONNREFUSED.*\n$/,
    );
    const ws = await scene.workspace();
    const submit = await ralph([
      'submit',
      'x',
      '--database-url',
      url,
      '--agent-command',
      AGENT_COMMAND,
      '--cwd',
      ws.dir,
    ]);
    expect(submit.code).toBe(1);
    expect(submit.stdout).toBe('');
    expect(submit.stderr).toMatch(/^ralph: cannot reach the database at .*ECONNREFUSED.*\n$/);
    const status = await ralph(['status', 'some-id', '--database-url', url]);
    expect(status.code).toBe(1);
    expect(status.stderr.split('\n')).toHaveLength(2);
  }, 30_000);

  it('lost in the middle of a run: the worker reports it, and the run goes on once it is back', async () => {
    const url = scene.databaseFor('lost');
    const ws = await scene.workspace();
    const worker = await startWorker(url, 'survivor', { env: { FLEET_AGENT_HOLD_ROUND: '2' } });
    scene.processes.push(worker);
    const submitted = await ralph([
      'submit',
      'Count to five',
      '--database-url',
      url,
      '--agent-command',
      AGENT_COMMAND,
      '--cwd',
      ws.dir,
    ]);
    const id = submitted.stdout.trim();
    await waitFor(() => ws.holders(2).length === 1, "round 2's agent");
    const waiting = spawnRalph(['wait', id, '--json', '--database-url', url]);
    scene.processes.push(waiting);
    await waitFor(
      () => waiting.stderr().includes(`ralph wait: ${id} running on survivor`),
      'ralph wait to wait',
    );

    await scene.pg.stop();
    await waitFor(
      () => worker.stderr().includes('lost the database'),
      'the worker to report the database lost',
    );
    await waitFor(
      () => waiting.stderr().includes('ralph wait: lost the database'),
      'ralph wait to report it',
    );
    // Round 2 ends while the database is away: its result is written once it is back.
    await ws.release();
    await waitFor(() => ws.log().some((line) => line.startsWith('end 2 ')), 'round 2 to end');
    await scene.pg.start();

    const { code } = await waiting.exited;
    expect(code).toBe(0);
    expect(waiting.stderr()).toContain('ralph wait: the database is back');
    expect(JSON.parse(waiting.stdout())).toMatchObject({
      runId: id,
      result: { status: 'complete', rounds: 5 },
    });
    for (let round = 1; round <= 5; round += 1) expect(ws.startsOf(round)).toHaveLength(1);
    await waitFor(() => worker.stderr().includes('the database is back'), 'the worker to report it back');
    await stopWorker(worker);
    await waitAllGone(
      ws.log().map((line) => Number(line.split(' ')[2])),
      'every agent to be gone',
    );
  }, 90_000);

  it('refuses a second live worker under an id already held, in one line, exit 1', async () => {
    const url = scene.databaseFor('ids');
    const holder = await startWorker(url, 'only-one');
    scene.processes.push(holder);
    const second = await ralph([
      'worker',
      '--database-url',
      url,
      '--worker-id',
      'only-one',
      '--allow-agent-command',
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `ralph worker: worker id only-one is held by a live worker (pid ${holder.pid} on ${hostname()}); ` +
        'give each worker an id of its own (--worker-id)\n',
    );
    await stopWorker(holder);
  }, 30_000);

  it('a worker that finds its lease taken over (it was cut off) kills its agent and exits 1', async () => {
    const url = scene.databaseFor('fenced');
    const ws = await scene.workspace();
    const worker = await startWorker(url, 'cut-off', { env: { FLEET_AGENT_HOLD_ROUND: '1' } });
    scene.processes.push(worker);
    await ralph(['submit', 'Wait', '--database-url', url, '--agent-command', AGENT_COMMAND, '--cwd', ws.dir]);
    const [agent] = await waitFor(() => ws.holders(1).length === 1 && ws.holders(1), "round 1's agent");
    // What another worker does when it takes over: the row is no longer this worker's.
    const pool = createPgPool({ connectionString: url, max: 1 });
    await pool.query("UPDATE ralph_fleet_workers SET pid = 1 WHERE worker_id = 'cut-off'");
    await pool.end();

    const { code } = await worker.exited;
    expect(code).toBe(1);
    expect(worker.stderr()).toContain(
      "ralph worker cut-off: another worker took this worker's runs over (its lease ran out); stopping",
    );
    await waitAllGone([agent as number], 'its agent to be killed');
  }, 30_000);
});
