import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { say } from '../support/chat-server.js';
import {
  completeReport,
  correctedWithinRound,
  expectCompletedInOneRound,
  expectCtrlCLeavesNoAgent,
  NO_EVIDENCE_REFUSED,
} from '../support/round-reports.js';
import { geminiWorld, REPORT_TOOL } from './harness.js';

/** The text of the n-th turn's function response: what the report tool answered the model. */
function toolAnswer(world: Awaited<ReturnType<typeof geminiWorld>>, turn: number): string {
  const parts = world.server.turns[turn]?.body.contents?.at(-1)?.parts ?? [];
  return JSON.stringify(parts.map((part) => part.functionResponse?.response));
}

describe('a gemini round and ralph’s report tool, through the real program', () => {
  it('an invalid first report is answered with its exact problem and corrected within the round', async () => {
    const world = await geminiWorld(() => correctedWithinRound(REPORT_TOOL));
    expectCompletedInOneRound(await world.ralphRun('Write note.txt', '--json').finished);
    expect(toolAnswer(world, 1)).toContain(NO_EVIDENCE_REFUSED);
    expect(toolAnswer(world, 2)).toContain('recorded: this round is reported');
  });

  it('a model that never calls the report tool ends the run as a missing report', async () => {
    const world = await geminiWorld(() => () => say(JSON.stringify(completeReport)));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    // The JSON the model printed is not taken for a report: only the report tool records one.
    expect(out.stderr).toContain(
      'ralph: round 1/256 started\nRalph workflow failed: round 1 child finished without a structured report\nthe agent exited 0 without a report\n',
    );
  });

  it('Ctrl-C mid-round cancels the run and leaves no gemini process, nor its report tool', async () => {
    const world = await geminiWorld(() => () => ({ kind: 'hold' }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForTurns(1);
    await expectCtrlCLeavesNoAgent(run, `HOME=${world.home.dir}`);
    expect(existsSync(join(world.workspace, 'note.txt'))).toBe(false);
  });
});
