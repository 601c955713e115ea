import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, say } from '../support/chat-server.js';
import { OPENCODE_USER_KEY, OPENCODE_USER_MODEL } from '../support/opencode-env.js';
import {
  completeReport,
  correctedWithinRound,
  expectCompletedInOneRound,
  expectCompletedInTwoRounds,
  expectCtrlCLeavesNoAgent,
  NO_EVIDENCE_REFUSED,
  twoRoundReports,
  twoToolRounds,
} from '../support/round-reports.js';
import { agentCalls, opencodeWorld, REPORT_TOOL } from './harness.js';

const reports = twoRoundReports('opencode', 'write');
const { continueReport, completeReport: round2Report } = reports;

/** Round 1: write note.txt with opencode's own write tool, report continue, end. Round 2: report complete, end. */
const twoRounds = (workspace: string) =>
  twoToolRounds(
    call('write', { filePath: join(workspace, 'note.txt'), content: 'written by opencode\n' }),
    REPORT_TOOL,
    reports,
  );

describe('ralph run --agent opencode drives the real opencode, reporting through ralph’s report tool', () => {
  it('round 1 edits the workspace with opencode’s write and continues, round 2 completes', async () => {
    const world = await opencodeWorld(twoRounds);
    const before = world.home.configAndData();
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expectCompletedInTwoRounds(out, round2Report);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by opencode\n');
    const turns = agentCalls(world.server);
    expect(turns).toHaveLength(5);
    // Round 2 was told of round 1 by ralph's handoff alone: none of round 1's tool calls reached it.
    const round2 = turns[3]?.messages ?? [];
    expect(JSON.stringify(round2)).toContain('check note.txt and finish');
    expect(round2.filter((message) => message.role === 'tool')).toEqual([]);

    // The user's own config chose the model, and their auth.json the key...
    for (const body of world.server.calls) expect(body.model).toBe(OPENCODE_USER_MODEL);
    for (const said of world.server.authorizations) expect(said).toBe(`Bearer ${OPENCODE_USER_KEY}`);
    // ...and nothing under ~/.config or ~/.local changed or was added: no session, no log.
    expect(world.home.configAndData()).toEqual(before);
  });

  it('an invalid first report is answered with its exact problem and corrected within the round', async () => {
    const world = await opencodeWorld(() => correctedWithinRound(REPORT_TOOL));
    expectCompletedInOneRound(await world.ralphRun('Write note.txt', '--json').finished);
    const answers = agentCalls(world.server).map((body) => JSON.stringify(body.messages?.at(-1)?.content));
    expect(answers[1]).toContain(NO_EVIDENCE_REFUSED);
    expect(answers[2]).toContain('recorded: this round is reported');
  });

  it('a model that never calls the report tool ends the run as a missing report', async () => {
    const world = await opencodeWorld(() => () => say(JSON.stringify(completeReport)));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'ralph: round 1/256 started\nRalph workflow failed: round 1 child finished without a structured report\nthe agent exited 0 without a report\n',
    );
  });

  it('Ctrl-C mid-round cancels the run and leaves no opencode process, nor its report tool', async () => {
    const world = await opencodeWorld(() => () => ({ kind: 'hold' }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForCalls(1);
    await expectCtrlCLeavesNoAgent(run, `HOME=${world.home.dir}`);
  });
});
