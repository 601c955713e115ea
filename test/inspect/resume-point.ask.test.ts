import { describe, expect, it } from 'vitest';
import {
  type AnswerSource,
  answeredHandoff,
  DEFAULT_MAX_HANDOFF_CHARS,
  RecordingError,
  resumePointOf,
} from '../../src/index.js';
import { blockedReport, completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

// Where a run that asks (`--ask`) picks up when its host died: while it waited for an answer it waits again; once the
// answer came, the answer is in the handoff of the round it goes on with. Every recording here is the engine's own.

const BLOCKER = 'Which database should the migration target?';
const ASKING = { waitForAnswersMs: 60_000 };
const ARGS = { objective: 'Migrate the schema', maxRounds: 4 };

/** A source that never answers: it waits until the run stops it. */
const neverAnswers: AnswerSource = (_question, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

/** The recording of a run whose round 1 blocked, cut while it waited for the answer (what a killed host leaves). */
async function recordingCutWhileWaiting() {
  const { tool } = scriptedTool(
    [{ report: continueReport('round 1') }, { report: blockedReport(BLOCKER) }],
    ASKING,
  );
  const lines: string[] = [];
  let cut: string[] | undefined;
  const controller = new AbortController();
  const answers: AnswerSource = (question, signal) => {
    // The wait has started: the snapshot of the state it waits in is on record once this turn is over.
    setImmediate(() => {
      cut = [...lines];
      controller.abort();
    });
    return neverAnswers(question, signal);
  };
  await rejection(
    tool.execute(ARGS, {
      agent,
      signal: controller.signal,
      answers,
      record: { write: (l) => lines.push(l) },
    }),
  );
  return (cut as string[]).join('');
}

/** The whole recording of a run whose round 2 blocked, was answered, and whose round 3 was cut at its child's start. */
async function recordingAnsweredThenCut() {
  const { tool } = scriptedTool(
    [{ report: continueReport('round 1') }, { report: blockedReport(BLOCKER) }, { hang: true }],
    ASKING,
  );
  const lines: string[] = [];
  let cut: string[] | undefined;
  const controller = new AbortController();
  const answers: AnswerSource = async () => ({ kind: 'answer', text: 'Postgres 16', by: 'test' });
  await rejection(
    tool.execute(ARGS, {
      agent,
      signal: controller.signal,
      answers,
      record: { write: (line) => lines.push(line) },
      onProgress: (event) => {
        if (event.type === 'child-started' && event.round === 3) {
          cut = [...lines];
          controller.abort();
        }
      },
    }),
  );
  return { cut: (cut as string[]).join(''), all: lines };
}

describe('resumePointOf: a run that asked', () => {
  it('stopped while it waited: the blocked round, its report, its children, and that it waits again', async () => {
    const text = await recordingCutWhileWaiting();
    expect(resumePointOf(text)).toEqual(
      expect.objectContaining({
        args: ARGS,
        point: {
          round: 2,
          handoff: blockedReport(BLOCKER),
          agentsStarted: 2,
          usage: null,
          awaitingAnswer: true,
        },
        lastState: 'running.awaitingAnswer',
        forcedExit: false,
      }),
    );
  });

  it('waits again through the tool with --ask, and the answer given then starts round 3 with it', async () => {
    const recorded = resumePointOf(await recordingCutWhileWaiting());
    const { tool, provider } = scriptedTool([{ report: completeReport() }], ASKING);
    const asked: number[] = [];
    const envelope = await tool.execute(recorded.args, {
      agent,
      resume: { runId: recorded.runId, point: recorded.point },
      answers: async (question) => {
        asked.push(question.round);
        return { kind: 'answer', text: 'Postgres 16' };
      },
    });
    expect(asked).toEqual([2]);
    expect(envelope).toMatchObject({ agentsStarted: 3, result: { status: 'complete', rounds: 3 } });
    expect(provider.requests.map((r) => [r.round, r.handoff])).toEqual([
      [3, answeredHandoff(blockedReport(BLOCKER), 'Postgres 16', DEFAULT_MAX_HANDOFF_CHARS)],
    ]);
  });

  it('is refused without --ask, before any child starts', async () => {
    const recorded = resumePointOf(await recordingCutWhileWaiting());
    const { tool, provider } = scriptedTool([{ report: completeReport() }]);
    const error = await rejection(
      tool.execute(recorded.args, { agent, resume: { runId: recorded.runId, point: recorded.point } }),
    );
    expect(error.message).toMatch(/resume it with --ask/);
    expect(provider.requests).toEqual([]);
  });

  it('answered and then stopped in the next round: that round again, with the answered handoff', async () => {
    const { cut } = await recordingAnsweredThenCut();
    const answered = answeredHandoff(blockedReport(BLOCKER), 'Postgres 16', DEFAULT_MAX_HANDOFF_CHARS);
    expect(resumePointOf(cut)).toMatchObject({
      point: { round: 2, handoff: answered, agentsStarted: 2, uncountedRounds: [3] },
      lastState: 'running.round.starting',
    });
    expect(resumePointOf(cut).point.awaitingAnswer).toBeUndefined();
    expect(JSON.stringify(resumePointOf(cut).point.handoff)).toContain('Postgres 16');
  });

  it('stopped after the answer came and before the snapshot it led to: the answer is not lost', async () => {
    const { all } = await recordingAnsweredThenCut();
    const answerLine = all.findIndex((line) => line.includes('"xstate.done.actor.awaitAnswer"'));
    expect(answerLine).toBeGreaterThan(0);
    const text = all.slice(0, answerLine + 1).join('');
    const resume = resumePointOf(text);
    expect(resume.lastState).toBe('running.awaitingAnswer');
    expect(resume.point).toEqual({
      round: 2,
      handoff: answeredHandoff(blockedReport(BLOCKER), 'Postgres 16', DEFAULT_MAX_HANDOFF_CHARS),
      agentsStarted: 2,
      usage: null,
    });
    // The line cut short after it reads as before it: still waiting.
    const before = all.slice(0, answerLine).join('');
    expect(resumePointOf(before).point).toMatchObject({ round: 2, awaitingAnswer: true });
  });

  it('refuses a recording whose answer is no answer (a file anyone may hand over)', async () => {
    const { all } = await recordingAnsweredThenCut();
    const text = all.join('').replace('"text":"Postgres 16"', '"text":{"html":"<b>"}').replace(/\n$/, '\n');
    expect(() => resumePointOf(text)).toThrow(RecordingError);
    expect(() => resumePointOf(text)).toThrow(/has an answer that is not one/);
  });
});
