import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ANSWERED_BLOCKER_LABEL, answeredHandoff, PERSON_ANSWER_LABEL } from '../../src/contract/answers.js';
import { reviewReport } from '../../src/contract/round-report-review.js';
import type { RalphReport } from '../../src/contract/types.js';
import { nonBlankText } from './arbitraries.js';

// Characters that JSON writes as 1 to 6 characters, a character outside the BMP (two UTF-16 units) and white space:
// the handoff cap counts JSON characters, the cuts count string units.
const unit = fc.constantFrom('a', 'Z', ' ', '\n', '"', '\\', '\u0001', 'é', '😀');
const text = (maxLength: number) =>
  fc.oneof(
    nonBlankText,
    fc.string({ minLength: 1, maxLength, unit }).filter((s) => s.trim() !== ''),
  );

/** A blocked report the rules accept, with texts long enough that a small cap must cut. */
const blockedReport: fc.Arbitrary<RalphReport> = fc.record({
  status: fc.constant('blocked' as const),
  summary: text(400),
  evidence: fc.array(text(200), { maxLength: 3 }),
  nextSteps: fc.array(text(100), { maxLength: 2 }),
  blocker: text(300).map((s): string | null => s),
});

/** A person's answer as the boundaries accept it: not blank, at most a few thousand characters. */
const answer = text(3_000);

const size = (report: RalphReport): number => JSON.stringify(report).length;

/** Whether JSON text holds half of a UTF-16 surrogate pair (JSON.stringify writes one as `\udXXX`). */
const hasLoneSurrogate = (json: string): boolean => /\\ud[89a-f][0-9a-f]{2}/i.test(json);

/** The handoff that hands the blocker and `answerText` on, as the contract words it. */
const labelled = (report: RalphReport, blocker: string, answerText: string): RalphReport => ({
  ...report,
  status: 'continue',
  blocker: null,
  nextSteps: [`${ANSWERED_BLOCKER_LABEL} ${blocker}`, `${PERSON_ANSWER_LABEL} ${answerText}`],
});

/**
 * The least room the two labels need: a one-character summary (worth at most 6 JSON characters), no evidence, the
 * blocker's first 200 characters and a cut answer (`…`). Below it the contract promises nothing.
 */
const labelsSize = (report: RalphReport): number =>
  size(labelled({ ...report, summary: '\u0001', evidence: [] }, (report.blocker ?? '').slice(0, 200), '…'));

/** A blocked report, an answer, and a handoff cap the labels fit, from tight to roomy. */
const fitting = fc
  .tuple(blockedReport, answer, fc.nat({ max: 6_000 }))
  .map(([report, given, extra]) => ({ report, given, cap: labelsSize(report) + extra }));

describe("the handoff after a person's answer", () => {
  test('never exceeds the handoff cap when the labels fit, and always passes the report rules', () => {
    fc.assert(
      fc.property(fitting, ({ report, given, cap }) => {
        const handoff = answeredHandoff(report, given, cap);
        expect(size(handoff)).toBeLessThanOrEqual(cap);
        // The next round's handoff is an accepted report under the same cap: the rules and the cap.
        expect(reviewReport(handoff, cap)).toEqual({ verdict: 'accepted', report: handoff });
        expect(handoff.status).toBe('continue');
        expect(handoff.blocker).toBeNull();
        const [blockerStep, answerStep] = handoff.nextSteps;
        expect(handoff.nextSteps).toHaveLength(2);
        expect(blockerStep?.startsWith(`${ANSWERED_BLOCKER_LABEL} `)).toBe(true);
        expect(answerStep?.startsWith(`${PERSON_ANSWER_LABEL} `)).toBe(true);
        // Cuts fall between characters: no half of a character pair is left (JSON would escape it to six).
        if (!hasLoneSurrogate(JSON.stringify({ report, given })))
          expect(hasLoneSurrogate(JSON.stringify(handoff)), 'a half character in the handoff').toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });

  test('keeps the whole answer, and the whole report, when they fit; else the start of the answer, marked cut', () => {
    fc.assert(
      fc.property(fitting, ({ report, given, cap }) => {
        const handoff = answeredHandoff(report, given, cap);
        const whole = labelled(report, report.blocker ?? '', given);
        if (size(whole) <= cap) {
          expect(handoff).toEqual(whole);
          return;
        }
        const answerStep = handoff.nextSteps[1] ?? '';
        const kept = answerStep.slice(`${PERSON_ANSWER_LABEL} `.length);
        expect(kept.endsWith('…'), 'a cut answer is marked').toBe(true);
        expect(given.startsWith(kept.slice(0, -1)), 'what is kept is the start of the answer').toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  test('keeps as much of the answer as the cap leaves room for, when the report itself fits', () => {
    fc.assert(
      fc.property(fitting, ({ report, given, cap }) => {
        const handoff = answeredHandoff(report, given, cap);
        const blocker = report.blocker ?? '';
        // Only where the whole report with a cut answer fits is the answer the thing that was cut.
        if (size(labelled(report, blocker, '…')) > cap || size(labelled(report, blocker, given)) <= cap)
          return;
        const kept = (handoff.nextSteps[1] ?? '').slice(`${PERSON_ANSWER_LABEL} `.length, -1);
        expect(handoff).toEqual(labelled(report, blocker, `${kept}…`));
        // One more character of the answer (a whole one) would not have fitted.
        const longer = given.slice(0, kept.length + ((given.codePointAt(kept.length) ?? 0) > 0xffff ? 2 : 1));
        expect(size(labelled(report, blocker, `${longer}…`))).toBeGreaterThan(cap);
      }),
      { numRuns: 1_000 },
    );
  });
});
