import { describe, expect, it } from 'vitest';
import {
  createRalphEngine,
  createScriptedProvider,
  normalizeConfig,
  RalphError,
  type RalphReport,
  RecordingError,
  replayRecording,
} from '../../src/index.js';
import { useOwnTmpdir } from '../faults/harness.js';
import { until, useScratch } from '../support/processes.js';
import { editLine, type RecordOptions, recordRun, rootLines } from './record-run.js';

useOwnTmpdir();
const s = useScratch();

const OBJECTIVE = 'Replay this loop';

/** A complete report whose summary alone is over a small handoff cap. */
const bulkyReport: RalphReport = {
  status: 'complete',
  summary: `bulky ${'x'.repeat(600)}`,
  evidence: ['done'],
  nextSteps: [],
  blocker: null,
};

interface Row extends RecordOptions {
  name: string;
  /** The state the live run ends in. */
  final: string;
}

const ROWS: Row[] = [
  { name: 'complete after three rounds', plan: ['continue', 'continue', 'complete'], final: 'complete' },
  { name: 'blocked in round 2', plan: ['continue', 'blocked'], final: 'blocked' },
  {
    name: 'budget-limited at the round cap',
    plan: ['continue'],
    args: { objective: OBJECTIVE, maxRounds: 2 },
    final: 'budgetLimited',
  },
  { name: 'a child that crashes in round 2', plan: ['continue', 'crash'], final: 'failed' },
  {
    name: 'a report file that is not JSON (the provider says malformed)',
    plan: ['garbage-file'],
    final: 'failed',
  },
  { name: 'garbage on stdout and no report file (missing)', plan: ['garbage'], final: 'failed' },
  {
    name: 'a report over the handoff cap',
    plan: ['report'],
    report: bulkyReport,
    config: { maxHandoffChars: 200 },
    final: 'failed',
  },
  { name: 'a provider that cannot start the agent', command: ['/nonexistent/ralph-agent'], final: 'failed' },
  {
    name: 'cancelled while round 2 runs',
    plan: ['continue', 'hang'],
    cancelOnceLogged: 2,
    config: { terminationGraceMs: 200 },
    final: 'cancelled',
  },
  { name: 'refused: maxRounds 0', args: { objective: OBJECTIVE, maxRounds: 0 }, final: 'rejected' },
  { name: 'refused: no objective', args: {}, final: 'rejected' },
];

describe('replayRecording rebuilds a recorded run from its events alone', () => {
  it.each(ROWS)('$name: the replay ends in the live state, context and outcome', async (row) => {
    const run = await recordRun(s, row);
    expect(run.final.value).toBe(row.final);

    const replay = replayRecording(run.text);

    expect(replay.snapshot.value).toBe(run.final.value);
    expect(replay.snapshot.status).toBe('done');
    expect(replay.snapshot.context).toEqual(run.final.context);
    expect(replay.outcome).toEqual(run.output);
    expect(replay.forcedExit).toBe(false);
    // The host got the same value, and the machine emitted the same progress.
    if (run.result.ok) expect(replay.outcome).toEqual({ ok: true, envelope: run.result.envelope });
    else if (replay.outcome.ok) throw new Error('the replay settled, the run failed');
    else
      expect(
        new RalphError(replay.outcome.failure, { runId: replay.snapshot.context.runId }).toJSON(),
      ).toEqual(run.result.error.toJSON());
    expect(replay.steps.flatMap((step) => step.emitted)).toEqual(run.progress);
  });

  it('replays the cancel deadline of a child that ignores its abort (a delayed event)', async () => {
    const run = await recordRun(s, {
      provider: createScriptedProvider([{ hang: true, ignoreAbort: true }]),
      config: { terminationGraceMs: 10 },
      cancelInState: 'running.round.awaitingReport',
    });
    expect(run.final.value).toBe('cancelled');

    const replay = replayRecording(run.lines);

    expect(replay.steps.map((step) => step.event.type).at(-1)).toMatch(/^xstate\.after\./);
    expect(replay.snapshot.value).toBe('cancelled');
    expect(replay.outcome).toEqual(run.output);
  });

  it('replays a run cancelled twice: the machine only ever gets the CANCEL it can take', async () => {
    const lines: string[] = [];
    const run = createRalphEngine().start(
      {
        args: { objective: OBJECTIVE },
        agent: { id: 'record-parent', cwd: s.workspace },
        config: normalizeConfig({ subagentProvider: 'scripted' }),
        provider: createScriptedProvider([{ hang: true, stopDelayMs: 20 }]),
      },
      { record: { write: (line: string) => lines.push(line) } },
    );
    await until(
      () => run.actor?.getSnapshot().matches({ running: { round: 'awaitingReport' } }) === true,
      'the child to run',
    );
    run.cancel();
    run.cancel();
    await run.result.catch(() => {});

    const replay = replayRecording(lines);
    expect(replay.steps.filter((step) => step.event.type === 'CANCEL')).toHaveLength(1);
    expect(replay.snapshot.value).toBe('cancelled');
  });

  it('reads the recording as text or as lines alike', async () => {
    const run = await recordRun(s, { plan: ['complete'] });
    const fromLines = replayRecording(run.lines.map((line) => line.trimEnd()));
    expect(fromLines.outcome).toEqual(replayRecording(run.text).outcome);
  });
});

/** The RecordingError a replay throws (fails the test if it replays). */
function refusal(text: string): RecordingError {
  try {
    replayRecording(text);
  } catch (error) {
    if (error instanceof RecordingError) return error;
    throw error;
  }
  throw new Error('the recording replayed');
}

describe('replayRecording refuses a recording it cannot replay, naming the line', () => {
  const completeRun = () => recordRun(s, { plan: ['continue', 'complete'] });

  it('made by another machine version: the header hash differs', async () => {
    const run = await completeRun();
    const error = refusal(editLine(run.text, 1, (header) => ({ ...header, machineHash: 'sha256:0123' })));
    expect(error.line).toBe(1);
    expect(error.message).toContain('another version of the ralph machine');
    expect(error.message).toContain('sha256:0123');
  });

  it('an event the machine has no transition for in its state', async () => {
    const run = await completeRun();
    const [reportDone] = rootLines(run.text, '@xstate.event', 'xstate.done.actor.');
    const error = refusal(
      editLine(run.text, reportDone as number, (line) => ({ ...line, event: { type: 'FINISH' } })),
    );
    expect(error.line).toBe(reportDone);
    expect(error.message).toBe(
      `line ${reportDone}: the event FINISH is impossible in state running.round.awaitingReport: the machine has no transition for it there`,
    );
  });

  it("a report's lines removed: the next round's start arrives while the machine still awaits a report", async () => {
    const run = await completeRun();
    // The machine's own lines of round 1's report (its event, microsteps and snapshot), gone.
    const [reportDone] = rootLines(run.text, '@xstate.event', 'xstate.done.actor.');
    const [, secondStart] = rootLines(run.text, '@xstate.event', 'CHILD_STARTED');
    const root = ['@xstate.event', '@xstate.microstep', '@xstate.snapshot'].flatMap((type) =>
      rootLines(run.text, type),
    );
    const removed = root.filter((line) => line >= (reportDone as number) && line < (secondStart as number));
    let text = run.text;
    for (const line of removed.sort((a, b) => b - a)) text = editLine(text, line, () => null);
    const error = refusal(text);
    const secondStartNow = (secondStart as number) - removed.length;
    expect(error.line).toBe(secondStartNow);
    expect(error.message).toMatch(
      new RegExp(
        `^line ${secondStartNow}: the event CHILD_STARTED is impossible in state running\\.round\\.awaitingReport`,
      ),
    );
  });

  it('a report edited to say complete: the path the machine takes is not the recorded one', async () => {
    const run = await completeRun();
    const [reportDone] = rootLines(run.text, '@xstate.event', 'xstate.done.actor.');
    const text = editLine(run.text, reportDone as number, (line) => {
      // runRound resolves with the raw report and what the round used.
      const event = line.event as { output: { output: RalphReport; usage: unknown } };
      const report: RalphReport = {
        ...event.output.output,
        status: 'complete',
        evidence: ['edited'],
        nextSteps: [],
      };
      return { ...line, event: { ...event, output: { ...event.output, output: report } } };
    });
    // The report is checked, then accepted, then what follows it is decided: the third microstep turns away.
    const turn = rootLines(text, '@xstate.microstep').filter((line) => line > (reportDone as number))[2];
    const error = refusal(text);
    expect(error.line).toBe(turn);
    expect(error.message).toBe(
      `line ${turn}: the microstep goes from running.reviewingReport.accepted to running.round.starting; the machine goes from running.reviewingReport.accepted to complete`,
    );
  });

  it('a snapshot edited on its own', async () => {
    const run = await completeRun();
    const [, second] = rootLines(run.text, '@xstate.snapshot');
    const text = editLine(run.text, second as number, (line) => {
      const snapshot = line.snapshot as { context: { agentsStarted: number } };
      return { ...line, snapshot: { ...snapshot, context: { ...snapshot.context, agentsStarted: 7 } } };
    });
    const error = refusal(text);
    expect(error.line).toBe(second);
    expect(error.message).toContain('context.agentsStarted is 1 in the machine but 7 in the recording');
  });

  it('a microstep edited: the path on record must be the one the machine took', async () => {
    const run = await completeRun();
    const [, , third] = rootLines(run.text, '@xstate.microstep');
    const error = refusal(editLine(run.text, third as number, (line) => ({ ...line, value: 'blocked' })));
    expect(error.line).toBe(third);
    expect(error.message).toContain(
      'the machine goes from running.round.awaitingReport to running.reviewingReport.checking',
    );
  });

  it('cut off before the run settled', async () => {
    const run = await completeRun();
    const lines = run.text.split('\n').filter(Boolean);
    const error = refusal(`${lines.slice(0, -4).join('\n')}\n`);
    expect(error.message).toMatch(/the recording ends (while the run was still going|before the snapshot)/);
  });

  it('a line that is not JSON, and a line out of time order', async () => {
    const run = await completeRun();
    const lines = run.text.split('\n').filter(Boolean);
    lines[4] = `${lines[4]?.slice(0, 20)}`;
    expect(refusal(`${lines.join('\n')}\n`).message).toMatch(
      /^line 5: is not JSON \(the recording may have been cut off/,
    );

    const late = editLine(run.text, 3, (line) => ({ ...line, t: 1_000_000 }));
    expect(refusal(late).message).toMatch(
      /^line 4: is earlier \(t \d+\) than the line before it \(t 1000000\)$/,
    );
  });

  it('a file that is no recording', () => {
    expect(refusal('').message).toBe('line 1: the recording is empty');
    expect(refusal('{"hello":"world"}\n').message).toContain('is not a ralph run recording header');
    expect(refusal('{"type":"@ralph.recording","formatVersion":4,"packageVersion":"0.2.0"}\n').message).toBe(
      'line 1: the recording has format version 4, written by ralph-machine 0.2.0; this ralph reads format ' +
        'versions 1 to 3: read it with a ralph that reads format version 4',
    );
    expect(refusal('{"type":"@ralph.recording","formatVersion":"1"}\n').message).toBe(
      'line 1: the header names no format version (formatVersion, a whole number from 1)',
    );
  });
});
