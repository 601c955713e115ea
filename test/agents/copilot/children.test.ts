import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { COPILOT_USER_KEY, COPILOT_USER_MODEL } from '../support/copilot-env.js';
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
import { copilotWorld, REPORT_TOOL } from './harness.js';

const reports = twoRoundReports('copilot', 'create');
const { continueReport, completeReport: round2Report } = reports;

/** Round 1: create note.txt with copilot's own create tool, report continue, end. Round 2: report complete, end. */
const twoRounds = (workspace: string) =>
  twoToolRounds(
    call('create', { path: join(workspace, 'note.txt'), file_text: 'written by copilot\n' }),
    REPORT_TOOL,
    reports,
  );

describe('ralph run --agent copilot drives the real copilot, reporting through ralph’s report tool', () => {
  it('round 1 edits the workspace with copilot’s create and continues, round 2 completes', async () => {
    const world = await copilotWorld(twoRounds);
    const before = world.home.snapshot();
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expectCompletedInTwoRounds(out, round2Report);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by copilot\n');
    expect(world.server.calls).toHaveLength(5);
    const round2 = world.server.calls[3]?.messages ?? [];
    expect(JSON.stringify(round2)).toContain('check note.txt and finish');
    expect(round2.filter((message) => message.role === 'tool')).toEqual([]);

    // The user's own provider settings (their environment) chose the model and the key...
    for (const body of world.server.calls) expect(body.model).toBe(COPILOT_USER_MODEL);
    for (const said of world.server.authorizations) expect(said).toBe(`Bearer ${COPILOT_USER_KEY}`);
    // ...and nothing under ~/.copilot changed or was added: no session state, no log, no session store.
    expect(world.home.snapshot()).toEqual(before);
    expect(existsSync(join(world.home.configDir, 'session-state'))).toBe(false);
  });

  it('an invalid first report is answered with its exact problem and corrected within the round', async () => {
    const world = await copilotWorld(() => correctedWithinRound(REPORT_TOOL));
    expectCompletedInOneRound(await world.ralphRun('Write note.txt', '--json').finished);
    const answers = world.server.calls.map((body) => JSON.stringify(body.messages?.at(-1)?.content));
    expect(answers[1]).toContain(NO_EVIDENCE_REFUSED);
    expect(answers[2]).toContain('recorded: this round is reported');
  });

  it('the shell is not allowed: a command the model asks for is refused, not run', async () => {
    const world = await copilotWorld((workspace) =>
      inOrder(
        call('bash', { command: `touch ${join(workspace, 'ran.txt')}`, description: 'touch a file' }),
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    expectCompletedInOneRound(await world.ralphRun('Write note.txt', '--json').finished);
    expect(existsSync(join(world.workspace, 'ran.txt'))).toBe(false);
    // The model was told so: the shell call came back refused.
    expect(JSON.stringify(world.server.calls[1]?.messages?.at(-1)?.content)).toContain('Permission denied');
  });

  it('a model that never calls the report tool ends the run as a missing report', async () => {
    const world = await copilotWorld(() => () => say(JSON.stringify(completeReport)));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'ralph: round 1/256 started\nRalph workflow failed: round 1 child finished without a structured report\nthe agent exited 0 without a report\n',
    );
  });

  it('Ctrl-C mid-round cancels the run and leaves no copilot process, nor its report tool', async () => {
    const world = await copilotWorld(() => () => ({ kind: 'hold' }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForCalls(1);
    await expectCtrlCLeavesNoAgent(run, `HOME=${world.home.dir}`);
  });
});
