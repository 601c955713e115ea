import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRalphFleet, type FleetGuardRails } from '../../src/fleet.js';
import {
  AGENT_COMMAND,
  type AgentWorkspace,
  isRunning,
  type RalphProcess,
  ralph,
  startWorker,
  stopWorker,
  submitArgs,
  useFleetScene,
  waitAllGone,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const { databaseFor, workspace } = scene;

/** A worker of this file's tests, its round folders in a temp folder of its own (see fleet.recovery.test.ts). */
async function worker(
  url: string,
  id: string,
  env: NodeJS.ProcessEnv,
  offer = ['--allow-agent-command', '--allow-verify'],
): Promise<RalphProcess> {
  const tmp = await workspace();
  const started = await startWorker(url, id, { env: { TMPDIR: tmp.dir, ...env }, offer });
  scene.processes.push(started);
  return started;
}

async function submit(url: string, ws: AgentWorkspace, ...extra: string[]): Promise<string> {
  const submitted = await ralph(submitArgs(url, ws.dir, 'Count to ten', ...extra));
  expect(submitted.stderr).toBe('');
  expect(submitted.code).toBe(0);
  return submitted.stdout.trim();
}

/** The fake Claude Code of the CLI tests. */
const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/bin/claude', import.meta.url));

const pidsOf = (ws: AgentWorkspace): number[] => ws.log().map((line) => Number(line.split(' ')[2]));

/**
 * The takeover the tests here go through: worker alpha runs the run until its round 3 holds, `beforeKill` runs,
 * beta starts, alpha is killed with SIGKILL, beta runs round 3 again once alpha's lease ran out, and round 3 is
 * released. Resolves with beta and the pid of alpha's round 3 agent.
 */
async function takeOverInRoundThree(
  url: string,
  ws: AgentWorkspace,
  alpha: RalphProcess,
  env: NodeJS.ProcessEnv,
  beforeKill: () => Promise<void> = async () => {},
): Promise<{ beta: RalphProcess; orphan: number }> {
  const [orphan] = await waitFor(() => ws.holders(3).length === 1 && ws.holders(3), "round 3's agent");
  await beforeKill();
  const beta = await worker(url, 'beta', env);
  alpha.child.kill('SIGKILL');
  await alpha.exited;
  await waitFor(() => ws.startsOf(3).length === 2, 'beta to run round 3 again');
  await ws.release();
  return { beta, orphan: orphan as number };
}

describe('the guard rails of a fleet run, held by whichever worker runs it', () => {
  it('--max-cost counts the rounds of the worker killed with SIGKILL in round 3: the run stops after round 4 of 10 at $4 of $3.50', async () => {
    const url = databaseFor('cost');
    const ws = await workspace();
    const env = { FLEET_AGENT_ROUNDS: '10', FLEET_AGENT_HOLD_ROUND: '3', FLEET_AGENT_COST_USD: '1' };
    const alpha = await worker(url, 'alpha', env);
    const id = await submit(url, ws, '--agent-reports-cost', '--max-cost', '3.50');
    const { beta, orphan } = await takeOverInRoundThree(url, ws, alpha, env, async () => {
      const held = await ralph(['status', id, '--database-url', url]);
      expect(held.stdout).toBe(`${id} running on alpha, 2 rounds done, used $2.00\n`);
    });

    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code).toBe(4);
    expect(JSON.parse(waited.stdout)).toMatchObject({
      runId: id,
      result: { status: 'budget-limited', rounds: 4, limit: { kind: 'cost', maxCostUsd: 3.5, spentUsd: 4 } },
    });
    expect(waited.stderr).toContain('ralph: used in all: $4.00\n');
    expect([1, 2, 3, 4, 5].map((round) => ws.startsOf(round).length)).toEqual([1, 1, 2, 1, 0]);
    const status = await ralph(['status', id, '--json', '--database-url', url]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      state: 'budget-limited',
      workerId: 'beta',
      usage: { costUsd: 4 },
    });
    const runs = await ralph(['runs', '--database-url', url]);
    expect(runs.stdout).toContain(`${id} budget-limited on beta, 4 rounds done, used $4.00\n`);

    await stopWorker(beta);
    expect(isRunning(orphan)).toBe(false);
    await waitAllGone(pidsOf(ws), 'every agent to be gone');
  }, 90_000);

  it("--max-time counts from the run's start: a run whose 6s passed while its worker was dead does not get 6s more", async () => {
    const url = databaseFor('time');
    const ws = await workspace();
    const env = { FLEET_AGENT_ROUNDS: '2', FLEET_AGENT_HOLD_ROUND: '1' };
    const alpha = await worker(url, 'alpha', env);
    const submittedAt = Date.now();
    const id = await submit(url, ws, '--max-time', '6s');
    await waitFor(() => ws.holders(1).length === 1, "round 1's agent");
    alpha.child.kill('SIGKILL');
    await alpha.exited;
    // The budget is spent by the time a live worker takes the run up; from then on the agent would finish at once.
    await waitFor(() => Date.now() - submittedAt > 7_000, 'the 6s budget to be spent');
    await ws.release();
    const beta = await worker(url, 'beta', env);

    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain(
      'the 6s time limit ran out during round 1, before any round had reported',
    );
    expect(ws.log().filter((line) => line.startsWith('end 2 '))).toEqual([]);
    await stopWorker(beta);
    await waitAllGone(pidsOf(ws), 'every agent to be gone');
  }, 90_000);

  it('--round-timeout and --verify hold on the worker; a bad value is refused at submit (exit 2), before the database', async () => {
    const url = databaseFor('rails');
    const held = await workspace();
    const verified = await workspace();
    // Round 1 holds until its workspace is released: never, in `held`; at once, in `verified`.
    await verified.release();
    const only = await worker(url, 'only', { FLEET_AGENT_ROUNDS: '1', FLEET_AGENT_HOLD_ROUND: '1' });
    const timedOut = await submit(url, held, '--round-timeout', '1s', '--grace-ms', '500');
    const rejected = await submit(url, verified, '--verify', 'false', '--max-rounds', '2');

    const refused = await ralph(
      submitArgs('postgres://nobody@127.0.0.1:1/none', held.dir, 'x', '--max-time', 'soon'),
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/--max-time/);
    const uncosted = await ralph(
      submitArgs('postgres://nobody@127.0.0.1:1/none', held.dir, 'x', '--max-cost', '5'),
    );
    expect(uncosted.code).toBe(2);
    expect(uncosted.stderr).toMatch(
      /^Ralph cannot hold the \$5\.00 cost limit: subagent provider "command" does not report/,
    );

    const waitedTimeout = await ralph(['wait', timedOut, '--database-url', url]);
    expect(waitedTimeout.code).toBe(1);
    expect(waitedTimeout.stderr).toContain('round 1 timed out');
    const waitedVerify = await ralph(['wait', rejected, '--json', '--database-url', url]);
    expect(waitedVerify.code).toBe(4);
    expect(JSON.parse(waitedVerify.stdout)).toMatchObject({
      result: { status: 'budget-limited', rounds: 2 },
    });
    expect([verified.startsOf(1).length, verified.startsOf(2).length]).toEqual([1, 1]);
    await stopWorker(only);
    await waitAllGone([...pidsOf(held), ...pidsOf(verified)], 'every agent to be gone');
  }, 90_000);

  it('--max-idle-rounds after a takeover: the replayed rounds keep the fingerprints they had, so they count as work done', async () => {
    const url = databaseFor('idle');
    const ws = await workspace();
    const env = { FLEET_AGENT_ROUNDS: '5', FLEET_AGENT_HOLD_ROUND: '3' };
    const alpha = await worker(url, 'alpha', env);
    const id = await submit(url, ws, '--max-idle-rounds', '2');
    const { beta } = await takeOverInRoundThree(url, ws, alpha, env);

    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ runId: id, result: { status: 'complete', rounds: 5 } });
    await stopWorker(beta);
    await waitAllGone(pidsOf(ws), 'every agent to be gone');
  }, 90_000);

  it('--verify after a takeover: the replayed rounds keep their verdicts, even once the command would pass', async () => {
    const url = databaseFor('verify');
    const ws = await workspace();
    // Every round reports complete; the verify command passes once the file `done` exists.
    const env = { FLEET_AGENT_ROUNDS: '1', FLEET_AGENT_HOLD_ROUND: '3' };
    const alpha = await worker(url, 'alpha', env);
    const id = await submit(url, ws, '--verify', 'test -e done');
    const { beta } = await takeOverInRoundThree(url, ws, alpha, env, () =>
      writeFile(join(ws.dir, 'done'), ''),
    );

    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({
      runId: id,
      result: { status: 'complete', rounds: 3, verifiedBy: ['test', '-e', 'done'] },
    });
    await stopWorker(beta);
    await waitAllGone(pidsOf(ws), 'every agent to be gone');
  }, 90_000);

  it('--wait-on-limits: a round whose agent hit a usage limit waits for its reset and runs again; without it, the run fails', async () => {
    const url = databaseFor('limits');
    const waiting = await workspace();
    const failing = await workspace();
    // The fake claude hits the limit (resetting in a second) the first time in a workspace, then reports complete.
    // The worker runs its own claude (a submitted run never names an executable).
    const only = await worker(
      url,
      'only',
      { FAKE_CLAUDE_MODE: 'usage-limit-once', FAKE_RESETS_IN: '1', RALPH_DEPTH: '' },
      ['--agent', 'claude', '--claude-path', FAKE_CLAUDE],
    );
    const claude = ['--agent', 'claude', '--max-rounds', '1'];
    const submitClaude = async (dir: string, ...extra: string[]) => {
      const args = ['submit', 'Finish', '--database-url', url, '--cwd', dir, ...claude, ...extra];
      const { code, stdout } = await ralph(args);
      expect(code).toBe(0);
      return stdout.trim();
    };
    const waited = await submitClaude(waiting.dir, '--wait-on-limits');
    const failed = await submitClaude(failing.dir);

    const afterWait = await ralph(['wait', waited, '--json', '--database-url', url]);
    expect(afterWait.code).toBe(0);
    expect(JSON.parse(afterWait.stdout)).toMatchObject({ result: { status: 'complete', rounds: 1 } });
    const afterFail = await ralph(['wait', failed, '--database-url', url]);
    expect(afterFail.code).toBe(1);
    expect(afterFail.stderr).toContain('Ralph round 1 child failed before producing a structured report.');
    expect(afterFail.stderr).toMatch(
      /claude hit a usage or rate limit: Claude AI usage limit reached\|\d+; it resets at/,
    );
    await stopWorker(only);
  }, 90_000);

  it("fleet.submit's guardRails set only the guard rails: any other config field in them is not the submitter's", async () => {
    const url = databaseFor('library');
    const ws = await workspace();
    const only = await worker(url, 'only', { FLEET_AGENT_ROUNDS: '1' });
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const runId = await fleet.submit({
      objective: 'Count to one',
      agent: { agentCommand: AGENT_COMMAND },
      cwd: ws.dir,
      // A handoff cap of 10 characters would fail every report: it is the worker's setting, not the run's.
      guardRails: { maxHandoffChars: 10 } as unknown as FleetGuardRails,
    });
    const settled = await fleet.wait(runId, { pollMs: 200 });
    expect(settled.outcome).toMatchObject({
      ok: true,
      envelope: { result: { status: 'complete', rounds: 1 } },
    });
    await stopWorker(only);
    await waitAllGone(pidsOf(ws), 'every agent to be gone');
  }, 60_000);
});
