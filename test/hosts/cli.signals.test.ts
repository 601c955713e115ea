import { readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKFLOW_CANCELLED } from '../../src/index.js';
import {
  isGone,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  spawnRalph,
  type Workspace,
  waitUntil,
  waitUntilGone,
} from '../fixtures/cli-agents/harness.js';

const workspaces: Workspace[] = [];
const leftovers: number[] = [];

afterEach(async () => {
  // A failed assertion must not leave an agent behind for the next test.
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});

async function workspace(plan: PlanStep[]): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  workspaces.push(made);
  return made;
}

/** Starts `ralph run` on a plan and waits until the agent of `round` is running. */
/**
 * Starts `ralph run` on a plan and waits until the agent of `round` is running. The CLI gets a temp folder of its
 * own (TMPDIR), where the provider keeps each round's files, so a test can see that nothing was left there.
 */
async function startAndWaitForRound(plan: PlanStep[], round: number, ...extra: string[]) {
  const ws = await workspace(plan);
  const tmp = join(ws.dir, '.tmp');
  await mkdir(tmp);
  const spawned = spawnRalph(
    ['run', 'Wait for the signal', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', ws.dir, ...extra],
    { env: { ...process.env, TMPDIR: tmp } },
  );
  const pid = await waitUntil(() => ws.pidOf(round), `round ${round}'s agent to start`);
  leftovers.push(pid);
  return { ws, ...spawned, pid, tmpLeftovers: () => readdirSync(tmp) };
}

describe('ralph run is cancelled by Ctrl-C and SIGTERM, and leaves no child running', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s cancels the run: the child is stopped, the seed message printed, exit 130',
    async (signal) => {
      const { child, finished, pid, tmpLeftovers } = await startAndWaitForRound(['continue', 'hang'], 2);

      child.kill(signal);
      const out = await finished;

      expect(out.code).toBe(130);
      expect(out.stderr).toContain('cancelling: waiting for the child agent to stop');
      expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(WORKFLOW_CANCELLED);
      expect(out.stdout).toBe('');
      // The run settles only after its child has exited, and the CLI reaped it: no such process any more.
      expect(isGone(pid)).toBe(true);
      expect(tmpLeftovers()).toEqual([]);
    },
  );

  it('a second Ctrl-C forces: the stubborn child and its process group are killed, exit 130', async () => {
    // The grace is long, so only the forced exit can end this run soon enough for the test to finish.
    const { ws, child, finished, pid, stderrSoFar, tmpLeftovers } = await startAndWaitForRound(
      ['stubborn'],
      1,
      '--grace-ms',
      '600000',
    );
    const grandchild = ws.grandchildPidOf(1);
    if (grandchild === undefined) throw new Error('the stubborn agent recorded no grandchild');
    leftovers.push(grandchild);

    child.kill('SIGINT');
    await waitUntil(() => stderrSoFar().includes('cancelling'), 'the first Ctrl-C to start the cancel');
    child.kill('SIGINT');
    const out = await finished;

    expect(out.code).toBe(130);
    expect(out.stderr).toContain('forced: killing the child agent and exiting');
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(WORKFLOW_CANCELLED);
    await waitUntilGone(pid);
    await waitUntilGone(grandchild);
    // Forcing still let the provider clean up after the killed round.
    expect(tmpLeftovers()).toEqual([]);
  });
});
