import { VERIFY_OUTPUT_TAIL, verifyEnding, verifyFailedStep } from './guard-rail-messages.js';
import { shortenToFit } from './shorten-to-fit.js';
import type { RalphReport, VerifyOutcome, VerifySpec } from './types.js';

const sizeOf = (report: RalphReport): number => JSON.stringify(report).length;

/** The handoff with `tail` as the last part of its next step. */
function withTail(base: RalphReport, step: string, tail: string): RalphReport {
  const text = tail === '' ? step : `${step}\n${VERIFY_OUTPUT_TAIL}\n${tail}`;
  return { ...base, nextSteps: [text] };
}

/**
 * The handoff after a completion the verify command did not accept: the round's report as a `continue` report
 * (so it passes the report rules and reads as work remaining), whose one next step says which command failed and
 * how, followed by as much of the end of its output as fits under the handoff cap. The tail is cut from its
 * start, since a failing test run says what failed last. Should even the bare note not fit, the summary is
 * shortened; the result never exceeds `maxHandoffChars` unless the note alone does.
 */
export function verifyFailureHandoff(
  report: RalphReport,
  verify: VerifySpec,
  outcome: VerifyOutcome,
  maxHandoffChars: number,
): RalphReport {
  const step = verifyFailedStep(verify.argv, verifyEnding(outcome, verify.timeoutMs));
  const base: RalphReport = { ...report, status: 'continue', blocker: null };
  const bare = withTail(base, step, '');
  const room = maxHandoffChars - sizeOf(bare);
  if (room < 0) {
    const summary = report.summary.slice(0, Math.max(1, report.summary.length + room - 1));
    return { ...bare, summary, evidence: [] };
  }
  // The tail is cut from its start: a failing test run says what failed last.
  const tail = shortenToFit(
    outcome.outputTail.slice(-room),
    (kept) => sizeOf(withTail(base, step, kept)) - maxHandoffChars,
    'end',
  );
  return withTail(base, step, tail);
}
