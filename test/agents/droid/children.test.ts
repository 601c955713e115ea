import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { DROID_USER_KEY, DROID_USER_MODEL } from '../support/droid-env.js';
import {
  completeReport,
  expectCompletedInOneRound,
  expectCompletedInTwoRounds,
  expectCtrlCLeavesNoAgent,
  NO_EVIDENCE_REFUSED,
  twoRoundReports,
} from '../support/round-reports.js';
import { droidWorld, LOAD_REPORT_TOOL, REPORT_TOOL } from './harness.js';

const reports = twoRoundReports('droid', 'Create');
const { continueReport, completeReport: round2Report } = reports;

/**
 * Round 1: create note.txt with droid's own Create tool, load the report tool, report continue, end. Round 2: load
 * the report tool, report complete, end.
 */
const twoRounds = (workspace: string) =>
  inOrder(
    call('Create', { file_path: join(workspace, 'note.txt'), content: 'written by droid\n' }),
    LOAD_REPORT_TOOL,
    call(REPORT_TOOL, continueReport),
    say('Reported.'),
    LOAD_REPORT_TOOL,
    call(REPORT_TOOL, round2Report),
    say('Reported.'),
  );

describe('ralph run --agent droid drives the real droid, reporting through ralph’s report tool', () => {
  it('round 1 edits the workspace with droid’s Create and continues, round 2 completes', async () => {
    const world = await droidWorld(twoRounds);
    const before = world.home.snapshot();
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expectCompletedInTwoRounds(out, round2Report);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by droid\n');
    expect(world.server.calls).toHaveLength(7);
    // The model is told the report tool's name from its first turn (Droid may not list it yet)...
    expect(JSON.stringify(world.server.calls[0]?.messages)).toContain(`calling the tool ${REPORT_TOOL}`);
    // ...and each round's report went through the report tool: Droid passed on its answer to the model.
    expect(JSON.stringify(world.server.calls[3]?.messages?.at(-1))).toContain(
      'recorded: this round is reported',
    );
    expect(JSON.stringify(world.server.calls[6]?.messages?.at(-1))).toContain(
      'recorded: this round is reported',
    );
    const round2 = world.server.calls[4]?.messages ?? [];
    expect(JSON.stringify(round2)).toContain('check note.txt and finish');
    expect(round2.filter((message) => message.role === 'tool')).toEqual([]);

    // The user's own custom model chose the model and the key...
    for (const body of world.server.calls) expect(body.model).toBe(DROID_USER_MODEL);
    for (const said of world.server.authorizations) expect(said).toBe(`Bearer ${DROID_USER_KEY}`);
    // ...and nothing under ~/.factory changed or was added: no session, no log, no cache.
    expect(world.home.snapshot()).toEqual(before);
    expect(existsSync(join(world.home.configDir, 'sessions'))).toBe(false);
  });

  it('an invalid first report is answered with its exact problem and corrected within the round', async () => {
    const world = await droidWorld(() =>
      inOrder(
        LOAD_REPORT_TOOL,
        call(REPORT_TOOL, { ...completeReport, evidence: [] }),
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    expectCompletedInOneRound(await world.ralphRun('Write note.txt', '--json').finished);
    const answers = world.server.calls.map((body) => JSON.stringify(body.messages?.at(-1)?.content));
    expect(answers[2]).toContain(NO_EVIDENCE_REFUSED);
    expect(answers[3]).toContain('recorded: this round is reported');
  });

  it('a model that never calls the report tool ends the run as a missing report', async () => {
    const world = await droidWorld(() => () => say(JSON.stringify(completeReport)));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'ralph: round 1/256 started\nRalph workflow failed: round 1 child finished without a structured report\nthe agent exited 0 without a report\n',
    );
  });

  it('Ctrl-C mid-round cancels the run and leaves no droid process, nor its report tool', async () => {
    const world = await droidWorld(() => () => ({ kind: 'hold' }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForCalls(1);
    await expectCtrlCLeavesNoAgent(run, `HOME=${world.home.dir}`);
  });
});
