import { EVALUATOR_REJECTED_STEP, evaluatorFindingStep, evaluatorFindingsCut } from './evaluator-messages.js';
import type { EvaluatorVerdict } from './evaluator-verdict.js';
import { TRUNCATION_MARKER } from './messages.js';
import type { RalphReport } from './types.js';

const sizeOf = (report: RalphReport): number => JSON.stringify(report).length;

/** The handoff whose next steps are the rejection's note, `kept` findings and, when some were left out, the cut. */
function withFindings(base: RalphReport, kept: readonly string[], total: number): RalphReport {
  const cut = total - kept.length;
  return {
    ...base,
    nextSteps: [
      EVALUATOR_REJECTED_STEP,
      ...kept.map(evaluatorFindingStep),
      ...(cut > 0 ? [evaluatorFindingsCut(cut)] : []),
    ],
  };
}

/**
 * The handoff after a completion an evaluator rejected: the round's report as a `continue` report (so it passes the
 * report rules and reads as work remaining), whose next steps say that an independent evaluator rejected it and
 * list its findings, as many as fit under the handoff cap. The cut is explicit: a finding that does not fit whole
 * is shortened with the truncation marker, and the findings left out are counted in a last step. Should even the
 * bare note not fit, the summary is shortened and the worker's evidence dropped; the result never exceeds
 * `maxHandoffChars` unless the note alone does.
 */
export function evaluatorRejectionHandoff(
  report: RalphReport,
  verdict: EvaluatorVerdict,
  maxHandoffChars: number,
): RalphReport {
  const base: RalphReport = { ...report, status: 'continue', blocker: null };
  const { findings } = verdict;
  const whole = withFindings(base, findings, findings.length);
  if (sizeOf(whole) <= maxHandoffChars) return whole;
  // The most findings that fit whole, with the cut counted after them.
  let kept = 0;
  while (
    kept < findings.length &&
    sizeOf(withFindings(base, findings.slice(0, kept + 1), findings.length)) <= maxHandoffChars
  )
    kept += 1;
  const fitted = withFindings(base, findings.slice(0, kept), findings.length);
  if (sizeOf(fitted) > maxHandoffChars) {
    const summary = report.summary.slice(
      0,
      Math.max(1, report.summary.length + maxHandoffChars - sizeOf(fitted) - 1),
    );
    return { ...fitted, summary, evidence: [] };
  }
  // The next finding, shortened to the room left (JSON escapes make a character cost up to 6).
  const next = findings[kept] as string;
  let room =
    maxHandoffChars -
    sizeOf(withFindings(base, [...findings.slice(0, kept), TRUNCATION_MARKER], findings.length));
  while (room > 0) {
    const shortened = `${next.slice(0, room)}${TRUNCATION_MARKER}`;
    const candidate = withFindings(base, [...findings.slice(0, kept), shortened], findings.length);
    const over = sizeOf(candidate) - maxHandoffChars;
    if (over <= 0) return candidate;
    room -= Math.max(1, Math.ceil(over / 6));
  }
  return fitted;
}
