import { expect } from 'vitest';
import { type RalphReport, WORKFLOW_CANCELLED } from '../../../src/index.js';
import type { Spawned } from '../../fixtures/cli-agents/harness.js';
import { isRunning, until } from '../../providers/processes.js';
import { processesWithEnv } from './agent-processes.js';

/** The reports of a two-round loop in which `agent` writes note.txt with `tool` in round 1 and checks it in round 2. */
export function twoRoundReports(
  agent: string,
  tool: string,
): { continueReport: RalphReport; completeReport: RalphReport } {
  return {
    continueReport: {
      status: 'continue',
      summary: `round 1 wrote note.txt with ${agent} ${tool}`,
      evidence: [],
      nextSteps: ['check note.txt and finish'],
      blocker: null,
    },
    completeReport: {
      status: 'complete',
      summary: 'round 2 checked note.txt',
      evidence: [`note.txt holds "written by ${agent}"`],
      nextSteps: [],
      blocker: null,
    },
  };
}

/** A complete report of one round. */
export const completeReport: RalphReport = {
  status: 'complete',
  summary: 'wrote note.txt',
  evidence: ['note.txt exists'],
  nextSteps: [],
  blocker: null,
};

/** The last line ralph wrote to stderr. */
export const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

/**
 * Sends SIGINT to a `ralph run` whose round is under way (its model request is held), and checks that the run ends
 * cancelled and that every process of the agent (found by `envEntry`, e.g. `HOME=<the test's home>`) is gone.
 */
export async function expectCtrlCLeavesNoAgent(run: Spawned, envEntry: string): Promise<void> {
  const ralphPid = run.child.pid ?? -1;
  const agentPids = processesWithEnv(envEntry, ralphPid);
  expect(agentPids.length).toBeGreaterThan(0);

  run.child.kill('SIGINT');
  const out = await run.finished;

  expect(out.code).toBe(130);
  expect(lastLine(out.stderr)).toBe(WORKFLOW_CANCELLED);
  await until(() => agentPids.every((pid) => !isRunning(pid)), 'every agent process to be gone');
  expect(processesWithEnv(envEntry, ralphPid)).toEqual([]);
}
