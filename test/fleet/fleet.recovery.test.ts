import { describe, expect, it } from 'vitest';
import {
  AGENT_COMMAND,
  type AgentWorkspace,
  isRunning,
  type RalphProcess,
  ralph,
  reaperOf,
  startWorker,
  stopWorker,
  useFleetScene,
  waitAllGone,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const { databaseFor, workspace } = scene;
const workers = scene.processes;

/**
 * The temp folder the workers of one test keep their round folders in: their own, so that the sweep of another
 * ralph process on this machine (which sweeps os.tmpdir()) cannot kill a dead worker's agent in their place.
 */
async function privateTmp(): Promise<NodeJS.ProcessEnv> {
  const ws = await workspace();
  return { TMPDIR: ws.dir, FLEET_AGENT_HOLD_ROUND: '3' };
}

async function worker(url: string, id: string, env: NodeJS.ProcessEnv): Promise<RalphProcess> {
  const started = await startWorker(url, id, { env });
  workers.push(started);
  return started;
}

async function submit(url: string, ws: AgentWorkspace, ...extra: string[]): Promise<string> {
  const submitted = await ralph([
    'submit',
    'Count to five',
    '--database-url',
    url,
    '--agent-command',
    AGENT_COMMAND,
    '--cwd',
    ws.dir,
    ...extra,
  ]);
  expect(submitted.stderr).toBe('');
  expect(submitted.code).toBe(0);
  return submitted.stdout.trim();
}

/** How many agents started in each round. */
function startsPerRound(ws: AgentWorkspace): Record<number, number> {
  const counts: Record<number, number> = {};
  for (let round = 1; round <= 5; round += 1) counts[round] = ws.startsOf(round).length;
  return counts;
}

/**
 * Kills the worker running round 3 with SIGKILL, and with `reaper` its reaper too (as when the OOM killer takes
 * both): its agent is then left running, re-parented, as the issue found, for the next worker to deal with.
 */
async function killInRoundThree(ws: AgentWorkspace, victim: RalphProcess, { reaper = false } = {}) {
  const [orphan] = await waitFor(() => ws.holders(3).length === 1 && ws.holders(3), "round 3's agent");
  if (reaper) {
    const pid = await waitFor(() => reaperOf(victim.pid), "the worker's reaper");
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isRunning(pid), 'the reaper to die');
  }
  victim.child.kill('SIGKILL');
  await victim.exited;
  if (reaper) expect(isRunning(orphan as number)).toBe(true);
  return orphan as number;
}

/** After the run settled: the envelope, one agent per round but two in round 3, and the orphan never finished. */
async function expectRecovered(url: string, id: string, ws: AgentWorkspace, orphan: number) {
  const waited = await ralph(['wait', id, '--json', '--database-url', url]);
  expect(waited.stderr).toMatch(new RegExp(`^(ralph wait: ${id} running on \\S+, \\d rounds? done\n)?$`));
  expect(waited.code).toBe(0);
  const envelope = JSON.parse(waited.stdout);
  expect(envelope).toMatchObject({ runId: id, result: { status: 'complete', rounds: 5 } });
  expect(envelope.result.report.summary).toBe('round 5');
  expect(startsPerRound(ws)).toEqual({ 1: 1, 2: 1, 3: 2, 4: 1, 5: 1 });
  expect(ws.log().filter((line) => line.startsWith('overlap'))).toEqual([]);
  expect(ws.log()).not.toContain(`end 3 ${orphan}`);
}

describe('a fleet run survives its worker killed with SIGKILL in the middle of round 3 of 5', () => {
  it("killed with SIGKILL, the worker's agent does not outlive it: its reaper kills it at once", async () => {
    const url = databaseFor('reaped');
    const ws = await workspace();
    const env = await privateTmp();
    const lone = await worker(url, 'lone', env);
    await submit(url, ws);
    const reaper = await waitFor(() => reaperOf(lone.pid), "the worker's reaper");
    const orphan = await killInRoundThree(ws, lone);
    // No other worker, no restart: only the reaper can have killed it.
    await waitFor(() => !isRunning(orphan), 'the orphaned agent to be killed');
    await waitFor(() => !isRunning(reaper), 'the reaper to exit');
    expect(ws.log()).not.toContain(`end 3 ${orphan}`);
  }, 60_000);

  it('restarted under the same id, the worker kills the orphaned agent, runs round 3 again and finishes', async () => {
    const url = databaseFor('restart');
    const ws = await workspace();
    const env = await privateTmp();
    const first = await worker(url, 'restarted', env);
    const id = await submit(url, ws);
    const orphan = await killInRoundThree(ws, first);

    const second = await worker(url, 'restarted', env);
    const [, rerun] = await waitFor(
      () => ws.startsOf(3).length === 2 && ws.startsOf(3),
      'round 3 to start again',
    );
    // The dead worker's agent was gone before the round started again: no two agents of the run at once.
    expect(isRunning(orphan)).toBe(false);
    await ws.release();
    await expectRecovered(url, id, ws, orphan);

    await stopWorker(second);
    await waitAllGone([...ws.startsOf(1), ...ws.startsOf(3), rerun as number], 'every agent to be gone');
  }, 90_000);

  it('with only another live worker left, that worker takes the run over once the lease ran out', async () => {
    const url = databaseFor('takeover');
    const ws = await workspace();
    const env = await privateTmp();
    const alpha = await worker(url, 'alpha', env);
    const id = await submit(url, ws);
    await waitFor(() => ws.holders(3).length === 1, "round 3's agent");
    // beta starts now and runs a round of another run first, so the sweep its provider makes before its first round
    // is behind it; alpha's reaper dies with alpha: the dead worker's agent must be killed by the takeover itself.
    const beta = await worker(url, 'beta', env);
    const other = await workspace();
    const warmUp = await submit(url, other, '--max-rounds', '1');
    const warmed = await ralph(['wait', warmUp, '--json', '--database-url', url]);
    expect(warmed.code).toBe(4);
    expect(
      JSON.parse((await ralph(['status', warmUp, '--json', '--database-url', url])).stdout).workerId,
    ).toBe('beta');
    const orphan = await killInRoundThree(ws, alpha, { reaper: true });

    await waitFor(() => ws.startsOf(3).length === 2, 'the live worker to start round 3 again');
    expect(isRunning(orphan)).toBe(false);
    expect(beta.stderr()).toMatch(/took over 1 run\(s\) of worker alpha \(its lease ran out\)/);
    await ws.release();
    await expectRecovered(url, id, ws, orphan);
    const after = JSON.parse((await ralph(['status', id, '--json', '--database-url', url])).stdout);
    expect(after.workerId).toBe('beta');

    await stopWorker(beta);
    const pids = [...ws.log(), ...other.log()].map((line) => Number(line.split(' ')[2]));
    await waitAllGone(pids, 'every agent to be gone');
  }, 90_000);

  it('stopped with SIGTERM, a worker kills its agent and hands the run to a live worker without waiting out its lease', async () => {
    const url = databaseFor('handover');
    const ws = await workspace();
    const env = await privateTmp();
    // A lease of 120 s: its heartbeat is 40 s apart, so waited out it would end 80–120 s after the stop.
    const leaving = await startWorker(url, 'leaving', { env, lease: '120s' });
    workers.push(leaving);
    const id = await submit(url, ws);
    const [first] = await waitFor(() => ws.holders(3).length === 1 && ws.holders(3), "round 3's agent");
    const staying = await worker(url, 'staying', env);
    await stopWorker(leaving);
    expect(isRunning(first as number)).toBe(false);

    // Long before the lease would run out (a busy machine took over 20 s to replay and start round 3 again).
    await waitFor(() => ws.startsOf(3).length === 2, 'the live worker to start round 3 again', 60_000);
    await ws.release();
    await expectRecovered(url, id, ws, first as number);
    await stopWorker(staying);
  }, 120_000);

  it('a worker stopped with no run: the live worker clears its lease without a line about taking over nothing', async () => {
    const url = databaseFor('idle_stop');
    const env = await privateTmp();
    const idle = await worker(url, 'idle', env);
    const staying = await worker(url, 'staying', env);
    await stopWorker(idle);
    // The stopped worker's lease row goes once the live one took it over (and found nothing to resume).
    await waitFor(async () => {
      const runs = await ralph(['runs', '--database-url', url]);
      return !runs.stdout.includes('worker idle:');
    }, "the stopped worker's lease to be cleared");
    expect(staying.stderr()).not.toContain('took over');
    await stopWorker(staying);
  }, 60_000);
});
