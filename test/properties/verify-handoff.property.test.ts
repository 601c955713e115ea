import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { reportSchema } from '../../src/contract/round-report.js';
import type { RalphReport, VerifyOutcome } from '../../src/contract/types.js';
import { verifyFailureHandoff } from '../../src/contract/verify-handoff.js';

const report: RalphReport = {
  status: 'complete',
  summary: 'The parser is done',
  evidence: ['npm test: 12 passed'],
  nextSteps: [],
  blocker: null,
};
const spec = { argv: ['npm', 'test'], timeoutMs: 600_000, maxOutputChars: 4_000 };

// After a completion the verify command did not accept, the next round reads the report and the failure: the handoff
// must stay a valid continue report, within the handoff cap, and keep the end of the output (what failed last).
describe('the handoff after a failed verify command', () => {
  test('is a valid continue report within the cap that ends with the end of the output', () => {
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 3_000,
          unit: fc.constantFrom('a', 'Z', '\n', '"', '\\', '\u0001', 'é', '😀'),
        }),
        fc.integer({ min: 600, max: 4_000 }),
        fc.oneof(fc.constant(1), fc.constant(null)),
        (tail, cap, exitCode) => {
          const outcome: VerifyOutcome = {
            exitCode,
            signal: exitCode === null ? 'SIGKILL' : null,
            timedOut: false,
            durationMs: 1_234,
            outputTail: tail,
          };
          const handoff = verifyFailureHandoff(report, spec, outcome, cap);
          expect(JSON.stringify(handoff).length).toBeLessThanOrEqual(cap);
          expect(reportSchema.safeParse(handoff).success).toBe(true);
          expect(handoff.status).toBe('continue');
          const [step] = handoff.nextSteps;
          const kept = step?.split('The end of its output:\n')[1] ?? '';
          expect(tail.endsWith(kept)).toBe(true);
          // Whatever the cap leaves room for is used: a short output is kept whole.
          if (
            JSON.stringify(verifyFailureHandoff(report, spec, { ...outcome, outputTail: tail }, 100_000))
              .length <= cap
          )
            expect(kept).toBe(tail);
        },
      ),
    );
  });
});
