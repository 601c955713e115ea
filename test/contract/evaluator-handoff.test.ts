import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluatorRejectionHandoff } from '../../src/contract/evaluator-handoff.js';
import { EVALUATOR_REJECTED_STEP } from '../../src/contract/evaluator-messages.js';
import type { EvaluatorVerdict } from '../../src/contract/evaluator-verdict.js';
import { type RalphReport, reportSchema, TRUNCATION_MARKER } from '../../src/index.js';
import { completeReport } from '../support/round-reports.js';

const sizeOf = (report: RalphReport): number => JSON.stringify(report).length;
const rejecting = (...findings: string[]): EvaluatorVerdict => ({
  verdict: 'reject',
  findings,
  evidence: [],
});
const step = (finding: string) => `Evaluator finding: ${finding}`;
const cutStep = (count: number) =>
  `… ${count === 1 ? '1 more finding was' : `${count} more findings were`} cut at the handoff cap.`;

/** The handoff with only the note: what must fit for the cap to hold. */
const bareNote = (report: RalphReport): RalphReport => ({
  ...report,
  status: 'continue',
  blocker: null,
  nextSteps: [EVALUATOR_REJECTED_STEP],
});

const report = completeReport('wrote add.js and its tests', ['npm test passed']);

describe('the handoff after a rejected completion', () => {
  it("is the worker's report as continue, the note first, then every finding when they fit", () => {
    const handoff = evaluatorRejectionHandoff(report, rejecting('add.js is missing', 'no test'), 16_384);
    expect(handoff).toEqual({
      status: 'continue',
      summary: 'wrote add.js and its tests',
      evidence: ['npm test passed'],
      nextSteps: [EVALUATOR_REJECTED_STEP, step('add.js is missing'), step('no test')],
      blocker: null,
    });
    expect(EVALUATOR_REJECTED_STEP).toBe(
      'An independent evaluator checked the workspace and rejected the reported completion; address its findings:',
    );
    expect(reportSchema.safeParse(handoff).success).toBe(true);
  });

  it('keeps every finding at exactly its size, and cuts at one character less', () => {
    const verdict = rejecting('first', 'second', 'third');
    const whole = evaluatorRejectionHandoff(report, verdict, 16_384);
    expect(evaluatorRejectionHandoff(report, verdict, sizeOf(whole))).toEqual(whole);
    const cut = evaluatorRejectionHandoff(report, verdict, sizeOf(whole) - 1);
    // The count of one left out is longer than "third" was: the second goes too, or is shortened to fit.
    expect(cut.nextSteps.slice(0, 2)).toEqual([EVALUATOR_REJECTED_STEP, step('first')]);
    expect([cutStep(1), cutStep(2)]).toContain(cut.nextSteps.at(-1));
    expect(sizeOf(cut)).toBeLessThanOrEqual(sizeOf(whole) - 1);
  });

  it('makes the cut explicit: whole findings, one shortened with the marker, the rest counted', () => {
    const findings = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(400), 'd', 'e'];
    const twoWhole = {
      ...bareNote(report),
      nextSteps: [EVALUATOR_REJECTED_STEP, ...findings.slice(0, 2).map(step)],
    };
    // Room for two whole findings, a third shortened to 20 characters with its marker, and the count of two more.
    const cap = sizeOf({
      ...twoWhole,
      nextSteps: [...twoWhole.nextSteps, step(`${'c'.repeat(20)}${TRUNCATION_MARKER}`), cutStep(2)],
    });
    const handoff = evaluatorRejectionHandoff(report, rejecting(...findings), cap);
    expect(handoff.nextSteps).toEqual([
      EVALUATOR_REJECTED_STEP,
      step(findings[0] as string),
      step(findings[1] as string),
      step(`${'c'.repeat(20)}${TRUNCATION_MARKER}`),
      cutStep(2),
    ]);
    expect(sizeOf(handoff)).toBe(cap);
  });

  it.each([
    [1, '1 more finding was'],
    [2, '2 more findings were'],
    [7, '7 more findings were'],
  ])('counts %i finding(s) left out', (left, words) => {
    const findings = ['x'.repeat(200), ...Array.from({ length: left }, (_, i) => `later ${i}`)];
    // Room for the note and the count only: the first finding cannot be shortened to anything.
    const cap = sizeOf({ ...bareNote(report), nextSteps: [EVALUATOR_REJECTED_STEP, cutStep(left + 1)] });
    const handoff = evaluatorRejectionHandoff(report, rejecting(...findings), cap);
    expect(handoff.nextSteps).toEqual([
      EVALUATOR_REJECTED_STEP,
      `… ${left + 1 === 1 ? '1 more finding was' : `${left + 1} more findings were`} cut at the handoff cap.`,
    ]);
    expect(cutStep(left)).toContain(words);
    expect(sizeOf(handoff)).toBeLessThanOrEqual(cap);
  });

  it('counts JSON escapes (quotes, newlines, control characters) as the cap does', () => {
    const escaped = '"quoted"\nline\u0001\u001b\\';
    const findings = [escaped.repeat(10), escaped.repeat(10), escaped.repeat(10)];
    const verdict = rejecting(...findings);
    const whole = evaluatorRejectionHandoff(report, verdict, 1_000_000);
    expect(whole.nextSteps).toEqual([EVALUATOR_REJECTED_STEP, ...findings.map(step)]);
    expect(evaluatorRejectionHandoff(report, verdict, sizeOf(whole))).toEqual(whole);
    for (let cap = sizeOf(whole) - 1; cap > sizeOf(bareNote(report)); cap -= 37) {
      const handoff = evaluatorRejectionHandoff(report, verdict, cap);
      expect(sizeOf(handoff)).toBeLessThanOrEqual(cap);
      expect(handoff.nextSteps[0]).toBe(EVALUATOR_REJECTED_STEP);
      expect(reportSchema.safeParse(handoff).success).toBe(true);
    }
  });

  it('drops the evidence, then shortens the summary with the marker, when the note and the count do not fit', () => {
    const long = completeReport(`${'s'.repeat(499)}😀`, ['e'.repeat(100)]);
    const dropped = evaluatorRejectionHandoff(long, rejecting('missing'), sizeOf(bareNote(long)) - 50);
    expect(dropped).toEqual({
      ...bareNote(long),
      evidence: [],
      nextSteps: [EVALUATOR_REJECTED_STEP, cutStep(1)],
    });

    const cap = sizeOf(bareNote(long)) - 200;
    const shortened = evaluatorRejectionHandoff(long, rejecting('missing'), cap);
    expect(shortened.evidence).toEqual([]);
    expect(shortened.nextSteps).toEqual([EVALUATOR_REJECTED_STEP, cutStep(1)]);
    expect(shortened.summary.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(long.summary.startsWith(shortened.summary.slice(0, -TRUNCATION_MARKER.length))).toBe(true);
    expect(sizeOf(shortened)).toBe(cap);
    expect(reportSchema.safeParse(shortened).success).toBe(true);
  });

  it('stays within the cap when the note fits but the count beside it does not', () => {
    // The count needs more room than a short summary can give: the note goes alone, whole.
    const short = completeReport('done', ['ok']);
    const handoff = evaluatorRejectionHandoff(short, rejecting('x'), sizeOf(bareNote(short)));
    expect(handoff).toEqual(bareNote(short));
  });

  it('never leaves a blank summary, however small the cap', () => {
    const handoff = evaluatorRejectionHandoff(completeReport('\n"', ['ok']), rejecting('x'), 1);
    expect(handoff.summary).toBe(TRUNCATION_MARKER);
    expect(reportSchema.safeParse(handoff).success).toBe(true);
  });

  it('never splits a surrogate pair when it shortens', () => {
    const emoji = '😀'.repeat(60);
    const whole = evaluatorRejectionHandoff(report, rejecting(emoji), 100_000);
    for (let cap = sizeOf(whole) - 1; cap > sizeOf(whole) - 120; cap -= 1) {
      const finding = evaluatorRejectionHandoff(report, rejecting(emoji), cap).nextSteps[1] as string;
      expect(hasLoneSurrogate(finding), `cap ${cap}: ${finding}`).toBe(false);
    }
  });
});

/** True when `text` holds half a surrogate pair (JSON writes one as a 6-character escape; it is no character). */
const hasLoneSurrogate = (text: string): boolean =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Text a worker or an evaluator may write: plain words, escapes JSON writes longer, and emoji (surrogate pairs). */
const text = fc
  .array(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('"', '\n', '\\', '\u0001', '😀', 'é')), {
    maxLength: 12,
  })
  .map((parts) => parts.join(''))
  .filter((joined) => joined.trim().length > 0);

const workerReport = fc.record({
  summary: text,
  evidence: fc.array(text, { minLength: 1, maxLength: 3 }),
});

describe('the handoff after a rejected completion, for any findings and cap', () => {
  it('passes the report rules, and stays within the cap whenever the bare note fits', () => {
    fc.assert(
      fc.property(
        workerReport,
        fc.array(text, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 2_500 }),
        ({ summary, evidence }, findings, cap) => {
          const worker = completeReport(summary, evidence);
          const handoff = evaluatorRejectionHandoff(worker, rejecting(...findings), cap);
          expect(reportSchema.safeParse(handoff).success).toBe(true);
          expect(handoff.status).toBe('continue');
          expect(handoff.blocker).toBeNull();
          expect(handoff.nextSteps[0]).toBe(EVALUATOR_REJECTED_STEP);
          if (sizeOf(bareNote(worker)) <= cap) expect(sizeOf(handoff)).toBeLessThanOrEqual(cap);
          // Whole findings in order, then at most one shortened with the marker, then the count of the rest.
          const steps = handoff.nextSteps.slice(1);
          const counted = steps.at(-1)?.startsWith('… ') ? steps.pop() : undefined;
          steps.forEach((kept, i) => {
            const finding = findings[i] as string;
            if (kept !== step(finding)) {
              expect(i).toBe(steps.length - 1);
              expect(kept.endsWith(TRUNCATION_MARKER)).toBe(true);
              expect(finding.startsWith(kept.slice(step('').length, -TRUNCATION_MARKER.length))).toBe(true);
            }
          });
          if (steps.length === findings.length) expect(counted).toBeUndefined();
          else if (counted !== undefined) expect(counted).toBe(cutStep(findings.length - steps.length));
          else {
            // Left out uncounted only when not even the note and the count beside the smallest report fit.
            expect(steps).toEqual([]);
            const smallest = { ...bareNote(worker), evidence: [], summary: TRUNCATION_MARKER };
            expect(
              sizeOf({ ...smallest, nextSteps: [EVALUATOR_REJECTED_STEP, cutStep(findings.length)] }),
            ).toBeGreaterThan(cap);
          }
          for (const part of [handoff.summary, ...handoff.evidence, ...handoff.nextSteps])
            expect(hasLoneSurrogate(part)).toBe(false);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
