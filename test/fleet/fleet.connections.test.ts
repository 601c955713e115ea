import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFullRefused } from '../../src/contract/fleet-connection-messages.js';
import { createPgSession, type PgSession } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { connectionsTo } from '../support/tcp-sockets.js';
import {
  AGENT_COMMAND,
  agentWorkspace,
  databaseFailures,
  ralph,
  spawnRalph,
  startWorker,
  stopWorker,
  submitRun,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const { databaseFor, workspace, fleets } = scene;

describe("a worker's connections to Postgres", () => {
  it.each([
    { connections: 3, extra: [] },
    { connections: 2, extra: ['--db-connections', '2'] },
  ])(
    'a worker at --concurrency 8 runs 8 runs at once on at most $connections connections, and every run completes',
    async ({ connections, extra }) => {
      const url = databaseFor(`eight_on_${connections}`);
      const worker = await startWorker(url, `eight-on-${connections}`, {
        env: { FLEET_AGENT_ROUNDS: '3', FLEET_AGENT_HOLD_ROUND: '2' },
        extra: ['--concurrency', '8', ...extra],
      });
      scene.processes.push(worker);
      let most = 0;
      const sample = () => {
        most = Math.max(most, connectionsTo(worker.pid, scene.pg.port));
      };
      const fleet = await createRalphFleet({ databaseUrl: url });
      fleets.push(fleet);
      const runs = await Promise.all(
        Array.from({ length: 9 }, async (_, n) => {
          const ws = await workspace();
          const runId = await fleet.submit({
            objective: `Count to three (${n})`,
            agent: { agentCommand: AGENT_COMMAND },
            cwd: ws.dir,
          });
          return { runId, ws };
        }),
      );
      // Eight runs inside their second round at once, each holding its agent there: the worker's slots all taken.
      await waitFor(() => {
        sample();
        return runs.filter(({ ws }) => ws.holders(2).length === 1).length === 8;
      }, 'eight runs holding in round 2');
      sample();
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(connections);

      // Let go together: eight runs finish their rounds side by side, their steps taking turns on the pool, and the
      // ninth takes the slot freed.
      await Promise.all(runs.map(({ ws }) => ws.release()));
      await waitFor(() => {
        sample();
        return runs.every(({ ws }) => ws.startsOf(3).length === 1);
      }, 'every run in its last round');
      const settled = await Promise.all(runs.map(({ runId }) => fleet.wait(runId, { pollMs: 200 })));
      sample();
      for (const status of settled) {
        expect(status.state).toBe('complete');
        expect(status.outcome).toMatchObject({ ok: true, envelope: { result: { rounds: 3 } } });
      }
      expect(most).toBeLessThanOrEqual(connections);
      // No step waited past the pool's limit, and the heartbeat always had its turn.
      expect(databaseFailures(worker)).toEqual([]);
      expect(worker.stderr()).not.toMatch(/dbos error|lost the database|timeout/);
      await stopWorker(worker);
    },
    180_000,
  );

  it('refuses --db-connections below 2 before the database is asked (exit 2)', async () => {
    const refused = await ralph([
      'worker',
      '--database-url',
      'postgres://nobody@127.0.0.1:1/none',
      '--allow-agent-command',
      '--db-connections',
      '1',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'ralph worker --db-connections must be a whole number of at least 2 (got "1"): DBOS keeps one connection for its notifications, and every query needs another\n',
    );
  }, 60_000);
});

describe('a server without room for a worker', () => {
  let small: TestPostgres;
  const held: PgSession[] = [];
  beforeAll(async () => {
    small = await startTestPostgres({ maxConnections: 12 });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(held.map((session) => session.end().catch(() => {})));
    await small?.destroy();
  }, 60_000);

  /** The client connections the server has open, as one held session counts them (itself included). */
  const inUse = async (session: PgSession) => {
    const { rows } = await session.query<{ n: number }>(
      "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE backend_type = 'client backend'",
    );
    return rows[0]?.n;
  };

  it('refuses the worker at start (exit 2) with the figures, and nothing runs until it has room', async () => {
    const ws = await agentWorkspace();
    try {
      const submitted = await submitRun(small.url, ws.dir);
      expect(submitted.code).toBe(0);
      const runId = submitted.stdout.trim();
      // Seven connections taken by others: 12 less 3 reserved for superusers less 7 leaves 2.
      for (let n = 0; n < 7; n += 1) {
        const session = createPgSession({ connectionString: small.url });
        session.on('error', () => {});
        await session.connect();
        held.push(session);
      }
      const [first] = held as [PgSession];
      // The submitter's connections end with its process, the server's side a moment later.
      await waitFor(async () => (await inUse(first)) === 7, 'only the held connections open');

      const worker = spawnRalph(
        [
          'worker',
          '--database-url',
          small.url,
          '--worker-id',
          'small',
          '--allow-agent-command',
          '--concurrency',
          '8',
        ],
        { FLEET_AGENT_ROUNDS: '1' },
      );
      scene.processes.push(worker);
      expect((await worker.exited).code).toBe(2);
      expect(worker.stderr()).toBe(
        `${serverFullRefused(3, 2, { maxConnections: 12, superuserReserved: 3, reserved: 0, inUse: 7 })}\n`,
      );
      expect(worker.stderr()).toBe(
        "ralph worker: the database server has room for 2 more connections and this worker needs 3 (--db-connections 3): max_connections 12, less 3 reserved for superusers (superuser_reserved_connections), less 7 in use (pg_stat_activity). Raise max_connections, stop some of the server's clients, or give this worker fewer (--db-connections, at least 2); the worker did not start\n",
      );
      expect(ws.log()).toEqual([]);
      const status = await ralph(['status', runId, '--json', '--database-url', small.url]);
      expect(JSON.parse(status.stdout)).toMatchObject({ state: 'queued' });
      const listed = await ralph(['runs', '--json', '--database-url', small.url]);
      expect(JSON.parse(listed.stdout).workers).toEqual([]);

      // Two connections given back: room for 4, and a worker of 3 starts and runs the run.
      await Promise.all(held.splice(1, 2).map((session) => session.end()));
      await waitFor(async () => (await inUse(first)) === 5, 'two held connections closed');
      const roomy = await startWorker(small.url, 'roomy', {
        env: { FLEET_AGENT_ROUNDS: '1' },
        extra: ['--concurrency', '8'],
      });
      scene.processes.push(roomy);
      const waited = await ralph(['wait', runId, '--database-url', small.url]);
      expect(waited.code).toBe(0);
      expect(ws.startsOf(1)).toHaveLength(1);
      await stopWorker(roomy);
    } finally {
      await ws.cleanup();
    }
  }, 180_000);
});
