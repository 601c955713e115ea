import { describe, expect, it } from 'vitest';
import type { RalphReport, VerifyOutcome } from '../../src/contract/types.js';
import { verifyFailureHandoff } from '../../src/contract/verify-handoff.js';
import { completeReport } from '../support/round-reports.js';

const report = completeReport('The parser is done', ['npm test: 12 passed']);
const spec = { argv: ['npm', 'test'], timeoutMs: 60_000, maxOutputChars: 4_000 };
const failed = (outputTail: string): VerifyOutcome => ({
  exitCode: 1,
  signal: null,
  timedOut: false,
  durationMs: 4_000,
  outputTail,
});
const STEP =
  'The previous round reported the objective complete, but the completion was not accepted: the verify command `npm test` exited with status 1 after 4s. Make it pass, then report complete again.';

const sizeOf = (handoff: RalphReport): number => JSON.stringify(handoff).length;
/** The end of the output a handoff's step carries ('' when none). */
const keptTail = (handoff: RalphReport): string =>
  handoff.nextSteps[0]?.split('\nThe end of its output:\n')[1] ?? '';

describe('the handoff after a completion the verify command did not accept', () => {
  it('is the report as continue, its one next step the failure and then the end of the output', () => {
    expect(verifyFailureHandoff(report, spec, failed('FAIL parser.test.ts\n1 failed'), 16_384)).toEqual({
      status: 'continue',
      summary: 'The parser is done',
      evidence: ['npm test: 12 passed'],
      nextSteps: [`${STEP}\nThe end of its output:\nFAIL parser.test.ts\n1 failed`],
      blocker: null,
    });
  });

  it('carries the failure alone when the command printed nothing', () => {
    expect(verifyFailureHandoff(report, spec, failed(''), 16_384).nextSteps).toEqual([STEP]);
  });

  it('keeps as much of the end of a long output as fits, filling the handoff cap exactly', () => {
    const output = Array.from({ length: 400 }, (_, i) => `line ${i} ok`).join(';');
    const handoff = verifyFailureHandoff(report, spec, failed(output), 2_000);
    expect(sizeOf(handoff)).toBe(2_000);
    expect(output.endsWith(keptTail(handoff))).toBe(true);
    expect(keptTail(handoff).length).toBeGreaterThan(1_000);
  });

  it.each([
    ['newlines', '\n'.repeat(3_000)],
    ['colour codes', '\u001b[31mFAIL\u001b[0m parser.test.ts > reads "x"\n'.repeat(200)],
    ['quotes and backslashes', 'a"\\'.repeat(1_000)],
  ])('keeps the longest end that fits when the output is full of %s, which JSON escapes', (_name, output) => {
    const handoff = verifyFailureHandoff(report, spec, failed(output), 2_000);
    const kept = keptTail(handoff);
    expect(sizeOf(handoff)).toBeLessThanOrEqual(2_000);
    expect(kept).not.toBe('');
    expect(output.endsWith(kept)).toBe(true);
    // One character more of the output would not have fitted.
    const longer = `${STEP}\nThe end of its output:\n${output.slice(-(kept.length + 1))}`;
    expect(sizeOf({ ...handoff, nextSteps: [longer] })).toBeGreaterThan(2_000);
  });

  it('keeps the summary and the evidence when the bare note fills the cap exactly', () => {
    const cap = sizeOf(verifyFailureHandoff(report, spec, failed(''), 16_384));
    const handoff = verifyFailureHandoff(report, spec, failed('FAIL parser.test.ts'), cap);
    expect(handoff).toEqual({ ...report, status: 'continue', nextSteps: [STEP] });
    expect(sizeOf(handoff)).toBe(cap);
  });

  describe('when even the bare note is over the cap', () => {
    const summary = 'S'.repeat(200);

    it('shortens the summary by as much as the note is over, and no more than one character beyond', () => {
      const bare = sizeOf(
        verifyFailureHandoff({ ...report, summary, evidence: [] }, spec, failed(''), 16_384),
      );
      const handoff = verifyFailureHandoff(
        { ...report, summary, evidence: [] },
        spec,
        failed('FAIL'),
        bare - 50,
      );
      expect(handoff.nextSteps).toEqual([STEP]);
      expect(summary.startsWith(handoff.summary)).toBe(true);
      expect(sizeOf(handoff)).toBeLessThanOrEqual(bare - 50);
      expect(sizeOf(handoff)).toBeGreaterThanOrEqual(bare - 51);
    });

    it('drops the evidence too', () => {
      const bare = sizeOf(verifyFailureHandoff({ ...report, summary }, spec, failed(''), 16_384));
      const handoff = verifyFailureHandoff({ ...report, summary }, spec, failed('FAIL'), bare - 50);
      expect(handoff).toMatchObject({ status: 'continue', evidence: [], nextSteps: [STEP], blocker: null });
      expect(handoff.summary).toHaveLength(149);
      expect(sizeOf(handoff)).toBeLessThanOrEqual(bare - 50);
    });

    it('keeps at least one character of the summary', () => {
      const handoff = verifyFailureHandoff(report, spec, failed('FAIL'), 10);
      expect(handoff.summary).toBe('T');
      expect(handoff.evidence).toEqual([]);
    });
  });
});
