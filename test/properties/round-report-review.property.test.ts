import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checkReport, handoffSize } from '../../src/contract/round-report.js';
import { reviewReport } from '../../src/contract/round-report-review.js';
import { unreadableReport } from '../../src/contract/unreadable-round-report.js';
import { reportLike, validReport } from './arbitraries.js';

const raw = fc.oneof(reportLike, validReport, fc.anything(), fc.constantFrom(null, undefined));
const cap = fc.integer({ min: 1, max: 2_000 });

describe('a report is reviewed into plain data that says everything the run decides on', () => {
  test('its verdict is what one check and the handoff cap say', () => {
    fc.assert(
      fc.property(raw, cap, (output, maxHandoffChars) => {
        const review = reviewReport(output, maxHandoffChars);
        const checked = checkReport(output);
        if (output === null || output === undefined) expect(review).toEqual({ verdict: 'missing' });
        else if (!checked.ok) expect(review).toEqual({ verdict: 'malformed', problem: checked.problem });
        else if (handoffSize(checked.report) > maxHandoffChars)
          expect(review).toEqual({ verdict: 'oversized', size: handoffSize(checked.report) });
        else expect(review).toEqual({ verdict: 'accepted', report: checked.report });
        // Plain data: it survives JSON unchanged, so a snapshot carries it as it is.
        expect(JSON.parse(JSON.stringify(review))).toEqual(review);
      }),
      { numRuns: 2000 },
    );
  });

  test("a provider's word keeps its kind and its reason", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('missing' as const, 'malformed' as const),
        fc.string(),
        cap,
        (kind, problem, c) => {
          expect(reviewReport(unreadableReport(kind, problem), c)).toEqual({ verdict: kind, problem });
        },
      ),
    );
  });
});
