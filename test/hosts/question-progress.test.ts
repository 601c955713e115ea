import { describe, expect, it, vi } from 'vitest';
import type { RalphProgressEvent } from '../../src/contract/types.js';
import { CLEAR_LINE, createProgressReporter } from '../../src/hosts/cli/progress.js';
import { captureStream } from '../support/capture-stream.js';

const asked: RalphProgressEvent = {
  type: 'question-asked',
  runId: 'V1StGXR8_Z5jdHi6B-myT',
  round: 2,
  maxRounds: 5,
  question: 'Which database?\x1b[2J\nPostgres or MySQL?',
  waitMs: 7_200_000,
};

/** A stream that keeps what was written to it. */
function screen() {
  const captured = captureStream();
  return { stream: captured.stream, text: captured.text, count: () => captured.chunks.length };
}

describe('ralph run prints a question, its answer or why none came', () => {
  it('to a log: the question (without its control characters), how to answer, then the answer', () => {
    const out = screen();
    const progress = createProgressReporter(out.stream, { live: false, color: false });
    progress.onProgress(asked);
    progress.onProgress({
      type: 'question-answered',
      runId: asked.runId,
      round: 2,
      maxRounds: 5,
      answer: 'Postgres\n16',
      by: 'terminal',
    });
    progress.stop();
    expect(out.text()).toBe(
      [
        // The escape character goes; what followed it is plain text, which no terminal acts on.
        'ralph: Round 2 is blocked and asks: Which database?[2J\nPostgres or MySQL?',
        `ralph: Waiting up to 2h for an answer. Answer with: ralph answer ${asked.runId} "your answer"  (or --give-up to end it blocked)`,
        "ralph: round 2/5's blocker was answered (terminal): Postgres 16",
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['timed-out', 'nobody answered within 2h'],
    ['given-up', 'a person chose not to answer'],
    ['time-limit', "the run's time limit ran out"],
    ['unavailable', 'the question could not be put to a person (disk full)'],
  ] as const)('says why it stopped waiting: %s', (reason, why) => {
    const out = screen();
    const progress = createProgressReporter(out.stream, { live: false, color: false });
    progress.onProgress({
      type: 'question-unanswered',
      runId: asked.runId,
      round: 2,
      maxRounds: 5,
      reason,
      waitMs: 7_200_000,
      ...(reason === 'unavailable' ? { detail: 'disk full' } : {}),
    });
    expect(out.text()).toBe(`ralph: round 2/5: stopped waiting for an answer, ${why}\n`);
  });

  it('at a terminal, stops redrawing its live line while the run waits (a person may be typing there)', () => {
    vi.useFakeTimers();
    try {
      const out = screen();
      const progress = createProgressReporter(out.stream, { live: true, color: false });
      progress.onProgress(asked);
      const written = out.count();
      expect(out.text().endsWith('"your answer"  (or --give-up to end it blocked)\n')).toBe(true);

      vi.advanceTimersByTime(5_000);
      expect(out.count()).toBe(written);

      progress.onProgress({
        type: 'question-answered',
        runId: asked.runId,
        round: 2,
        maxRounds: 5,
        answer: 'x',
      });
      vi.advanceTimersByTime(1_000);
      expect(out.count()).toBeGreaterThan(written + 1);
      expect(out.text().endsWith(CLEAR_LINE)).toBe(false);
      progress.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
