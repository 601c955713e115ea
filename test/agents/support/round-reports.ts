import { expect } from 'vitest';
import { type RalphReport, WORKFLOW_CANCELLED } from '../../../src/index.js';
import type { Spawned } from '../../fixtures/cli-agents/harness.js';
import { isRunning, until } from '../../support/processes.js';
import { processesWithEnv } from './agent-processes.js';
import { type ChatReply, call, inOrder, say } from './chat-server.js';

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

/** What the report tool answers a complete report without evidence (see correctedWithinRound). */
export const NO_EVIDENCE_REFUSED =
  'not recorded: evidence: a complete report must carry evidence. Correct the report and call submit_report again';

/**
 * The model of a report-tool round that corrects itself: it reports `complete` without evidence through `tool`,
 * is refused, reports again with evidence, and ends its turn.
 */
export const correctedWithinRound = (tool: string) =>
  inOrder(call(tool, { ...completeReport, evidence: [] }), call(tool, completeReport), say('Reported.'));

/** Checks the `--json` output of a run that completed in one round with `completeReport`. */
export function expectCompletedInOneRound(out: { code: number | null; stdout: string }): void {
  expect(out.code).toBe(0);
  const envelope = JSON.parse(out.stdout);
  expect(envelope.result).toEqual({ status: 'complete', rounds: 1, report: completeReport });
  expect(envelope.agentsStarted).toBe(1);
}

/**
 * The model of a two-round report-tool loop: round 1 makes `edit` (a call of the agent's own file tool), reports
 * `continue` through `tool` and ends its turn; round 2 reports `complete` and ends its turn.
 */
export function twoToolRounds(edit: ChatReply, tool: string, reports: ReturnType<typeof twoRoundReports>) {
  return inOrder(
    edit,
    call(tool, reports.continueReport),
    say('Reported.'),
    call(tool, reports.completeReport),
    say('Reported.'),
  );
}

/** Checks the `--json` output of a run that completed in two rounds with `report`. */
export function expectCompletedInTwoRounds(
  out: { code: number | null; stdout: string },
  report: RalphReport,
) {
  expect(out.code).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({
    runId: expect.any(String),
    agentsStarted: 2,
    result: { status: 'complete', rounds: 2, report },
  });
}
