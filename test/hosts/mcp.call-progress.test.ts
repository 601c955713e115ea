import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answeredProgressText,
  howToAnswerWithTool,
  questionProgressText,
  unansweredLine,
} from '../../src/contract/answer-messages.js';
import type { RalphProgressEvent } from '../../src/contract/types.js';
import { callProgress, type ProgressLink, QUESTION_META_KEY } from '../../src/hosts/mcp/call-progress.js';

const accepted = (round: number): RalphProgressEvent => ({
  type: 'report-accepted',
  runId: 'run',
  round,
  maxRounds: 3,
  report: { status: 'continue', summary: `round ${round}`, evidence: [], nextSteps: ['on'], blocker: null },
});

/** A promise and the function that settles it, so a test decides when a send or a round trip completes. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const never = () => new Promise<never>(() => {});

describe('the progress of one MCP call', () => {
  it('is not tracked when the client sent no progress token', () => {
    const link: ProgressLink = {
      token: undefined,
      send: never,
      roundTrip: never,
      signal: new AbortController().signal,
    };
    expect(callProgress(link)).toBeUndefined();
  });

  it('sends round after round, each only once the one before is written, then confirms with a round trip', async () => {
    const log: string[] = [];
    const writes = [deferred(), deferred()];
    const progress = callProgress({
      token: 'p',
      send: (notification: ServerNotification) => {
        const round = (notification.params as { progress: number }).progress;
        log.push(`send ${round}`);
        return writes[round - 1]!.promise.then(() => {
          log.push(`written ${round}`);
        });
      },
      roundTrip: async () => {
        log.push('round trip');
      },
      signal: new AbortController().signal,
    })!;

    progress.onProgress(accepted(1));
    progress.onProgress({ type: 'round-started', runId: 'run', round: 2, maxRounds: 3 });
    progress.onProgress(accepted(2));
    const delivered = progress.delivered();
    writes[1]!.resolve();
    writes[0]!.resolve();
    await delivered;

    expect(log).toEqual(['send 1', 'written 1', 'send 2', 'written 2', 'round trip']);
  });

  it('neither fails nor hangs the call when sends and the round trip fail (the client went away)', async () => {
    const progress = callProgress({
      token: 1,
      send: () => Promise.reject(new Error('Not connected')),
      roundTrip: () => Promise.reject(new Error('Not connected')),
      signal: new AbortController().signal,
    })!;
    progress.onProgress(accepted(1));
    progress.onProgress(accepted(2));

    await expect(progress.delivered()).resolves.toBeUndefined();
  });

  it('stops waiting for a write or a round trip that never completes once the call is aborted', async () => {
    const controller = new AbortController();
    const progress = callProgress({ token: 1, send: never, roundTrip: never, signal: controller.signal })!;
    progress.onProgress(accepted(1));

    const delivered = progress.delivered();
    controller.abort();

    await expect(delivered).resolves.toBeUndefined();
  });
});

describe('the progress of a call whose run asks a person (--ask)', () => {
  it('says the question, its answer and an unanswered end, each above the last; the question rides in _meta', async () => {
    const sent: { progress: number; message?: string; _meta?: Record<string, unknown> }[] = [];
    const progress = callProgress({
      token: 'p',
      send: async (notification: ServerNotification) => {
        sent.push(notification.params as (typeof sent)[number]);
      },
      roundTrip: async () => {},
      signal: new AbortController().signal,
    })!;
    const asked = { runId: 'run', round: 1, maxRounds: 3, question: 'which database?', waitMs: 60_000 };

    progress.onProgress(accepted(1));
    progress.onProgress({ type: 'question-asked', ...asked });
    progress.onProgress({
      type: 'question-answered',
      runId: 'run',
      round: 1,
      maxRounds: 3,
      answer: 'pg',
      by: 'mcp',
    });
    progress.onProgress(accepted(2));
    progress.onProgress({ type: 'question-asked', ...asked, round: 2 });
    progress.onProgress({
      type: 'question-unanswered',
      runId: 'run',
      round: 2,
      maxRounds: 3,
      reason: 'timed-out',
      waitMs: 60_000,
    });
    await progress.delivered();

    expect(sent.map((params) => params.progress)).toEqual([1, 1.5, 1.75, 2, 2.5, 2.75]);
    expect(sent[1]?.message).toBe(questionProgressText(asked, howToAnswerWithTool('run')));
    expect(sent[1]?._meta).toEqual({ [QUESTION_META_KEY]: { ...asked, answerTool: 'ralph_answer' } });
    expect(sent[2]?.message).toBe(answeredProgressText(1, 'mcp'));
    expect(sent[5]?.message).toBe(unansweredLine({ round: 2, reason: 'timed-out', waitMs: 60_000 }));
  });
});

describe('a call that waits for an answer says its question again', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A call's progress whose notifications land in `sent`, with reminders every 1000 ms on fake timers. */
  function remindingProgress(signal = new AbortController().signal) {
    vi.useFakeTimers();
    const sent: { progress: number; message?: string }[] = [];
    const progress = callProgress({
      token: 'p',
      send: async (notification: ServerNotification) => {
        sent.push(notification.params as (typeof sent)[number]);
      },
      roundTrip: async () => {},
      signal,
      reminderMs: 1_000,
    })!;
    return { progress, sent };
  }

  const asked = { runId: 'run', round: 1, maxRounds: 3, question: 'which database?', waitMs: 60_000 };

  it('every reminderMs while it waits, each above the last and below the next round; none once it is answered', async () => {
    const { progress, sent } = remindingProgress();

    progress.onProgress(accepted(1));
    progress.onProgress({ type: 'question-asked', ...asked });
    await vi.advanceTimersByTimeAsync(3_000);
    progress.onProgress({ type: 'question-answered', runId: 'run', round: 1, maxRounds: 3, answer: 'pg' });
    await vi.advanceTimersByTimeAsync(5_000);
    progress.onProgress(accepted(2));
    await progress.delivered();

    const values = sent.map((params) => params.progress);
    // The report, the question, three reminders (1/2, 2/3, 3/4 of the way to round 2), the answer, the next report.
    expect(values).toHaveLength(7);
    [1, 1.5, 1.75, 1.5 + 0.5 * (2 / 3), 1.875].forEach((value, index) => {
      expect(values[index]).toBeCloseTo(value, 12);
    });
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
    expect(values.at(-1)).toBe(2);
    expect(sent[2]?.message).toBe(
      'Round 1 still waits for an answer (1s of 1m): which database?\nAnswer with the ralph_answer tool, runId "run"',
    );
    expect(sent[4]?.message).toContain('(3s of 1m)');
  });

  it('stops when the call is aborted while it waits, and when its result goes', async () => {
    const controller = new AbortController();
    const aborted = remindingProgress(controller.signal);
    aborted.progress.onProgress({ type: 'question-asked', ...asked });
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(aborted.sent).toHaveLength(2);

    const settled = remindingProgress();
    settled.progress.onProgress({ type: 'question-asked', ...asked });
    await settled.progress.delivered();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(settled.sent).toHaveLength(1);
  });
});
