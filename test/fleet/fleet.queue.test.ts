import { describe, expect, it } from 'vitest';
import { createRalphFleet } from '../../src/fleet.js';
import { WORKFLOW_CANCELLED } from '../../src/index.js';
import {
  AGENT_COMMAND,
  isRunning,
  ralph,
  startWorker,
  stopWorker,
  useFleetScene,
  waitAllGone,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const { databaseFor, workspace, fleets } = scene;
const workers = scene.processes;

async function worker(url: string, id: string, env: NodeJS.ProcessEnv, extra: string[] = []) {
  const started = await startWorker(url, id, { env, extra });
  workers.push(started);
  return started;
}

describe('a fleet queue', () => {
  it('two workers share 20 runs, and no run is executed twice, at once or at all', async () => {
    const url = databaseFor('shared');
    const env = { FLEET_AGENT_ROUNDS: '2' };
    const alpha = await worker(url, 'alpha', env, ['--concurrency', '2']);
    const beta = await worker(url, 'beta', env, ['--concurrency', '2']);
    const fleet = await createRalphFleet({ databaseUrl: url });
    fleets.push(fleet);
    const runs = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const ws = await workspace();
        const runId = await fleet.submit({
          objective: `Count to two (${n})`,
          agent: { agentCommand: AGENT_COMMAND },
          cwd: ws.dir,
        });
        return { runId, ws };
      }),
    );
    const settled = await Promise.all(runs.map(({ runId }) => fleet.wait(runId, { pollMs: 200 })));

    for (const [n, status] of settled.entries()) {
      const { runId, ws } = runs[n] as (typeof runs)[number];
      expect(status.state).toBe('complete');
      expect(status.outcome).toMatchObject({ ok: true, envelope: { runId, result: { rounds: 2 } } });
      // One agent per round, and never two agents of the run at once.
      expect([ws.startsOf(1).length, ws.startsOf(2).length]).toEqual([1, 1]);
      expect(ws.log().filter((line) => line.startsWith('overlap'))).toEqual([]);
    }
    const byWorker = new Set(settled.map((status) => status.workerId));
    expect(byWorker).toEqual(new Set(['alpha', 'beta']));

    const listed = await ralph(['runs', '--limit', '30', '--json', '--database-url', url]);
    expect(listed.code).toBe(0);
    const { runs: rows, workers: leases } = JSON.parse(listed.stdout);
    expect(rows).toHaveLength(20);
    expect(leases.map((lease: { workerId: string }) => lease.workerId).sort()).toEqual(['alpha', 'beta']);

    await Promise.all([stopWorker(alpha), stopWorker(beta)]);
    await waitAllGone(
      runs.flatMap(({ ws }) => [...ws.startsOf(1), ...ws.startsOf(2)]),
      'every agent to be gone',
    );
  }, 120_000);

  it('ralph cancel stops the child on the worker running it; ralph wait then exits 130', async () => {
    const url = databaseFor('cancel');
    const ws = await workspace();
    const running = await worker(url, 'canceller', { FLEET_AGENT_HOLD_ROUND: '1' });
    const submitted = await ralph([
      'submit',
      'Wait forever',
      '--database-url',
      url,
      '--agent-command',
      AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--grace-ms',
      '300',
    ]);
    const id = submitted.stdout.trim();
    const [agent] = await waitFor(() => ws.holders(1).length === 1 && ws.holders(1), "round 1's agent");

    const cancelled = await ralph(['cancel', id, '--database-url', url]);
    expect(cancelled.code).toBe(0);
    // The agent ignores SIGTERM: it is gone only because the worker killed it after the grace.
    await waitFor(() => !isRunning(agent as number), 'the agent to be stopped');
    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code).toBe(130);
    expect(waited.stderr).toContain(WORKFLOW_CANCELLED);
    const status = await ralph(['status', id, '--database-url', url]);
    expect(status.stdout).toMatch(new RegExp(`^${id} cancelled`));
    expect(ws.log()).not.toContain(`end 1 ${agent}`);
    // A run that has ended is not cancelled again, and ralph does not say it was.
    const again = await ralph(['cancel', id, '--database-url', url]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`ralph: ${id} has already ended (cancelled): nothing to cancel\n`);
    await stopWorker(running);
  }, 60_000);
});
