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

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * The longest start of `text` that `fits` once the truncation marker follows it, or undefined when none does.
 * The start never ends inside a surrogate pair, and is never blank unless `blankAllowed`. Binary search: a longer
 * start never serializes shorter once no cut splits a pair (a lone half would be written as a 6-character escape).
 */
function shortenedToFit(
  text: string,
  fits: (shortened: string) => boolean,
  blankAllowed: boolean,
): string | undefined {
  const cutAt = (length: number): string => {
    const end = length > 0 && isHighSurrogate(text.charCodeAt(length - 1)) ? length - 1 : length;
    return text.slice(0, end);
  };
  const usable = (start: string): boolean =>
    (blankAllowed || start.trim().length > 0) && fits(`${start}${TRUNCATION_MARKER}`);
  let low = 0;
  let high = text.length - 1;
  let best: string | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const start = cutAt(middle);
    if (usable(start)) {
      best = start;
      low = middle + 1;
    } else if (start.trim().length === 0 && !blankAllowed) low = middle + 1;
    else high = middle - 1;
  }
  return best === undefined ? undefined : `${best}${TRUNCATION_MARKER}`;
}

/**
 * The handoff after a completion an evaluator rejected: the round's report as a `continue` report (so it passes the
 * report rules and reads as work remaining), whose next steps say that an independent evaluator rejected it and
 * list its findings, as many as fit under the handoff cap. The cut is explicit: a finding that does not fit whole
 * is shortened with the truncation marker, and the findings left out are counted in a last step. Should the note
 * and the count not fit beside the worker's report, its evidence is dropped and its summary shortened with the
 * marker; should there be no room for the count at all, the note goes alone. The result never exceeds
 * `maxHandoffChars` unless the note alone beside the worker's report does.
 */
export function evaluatorRejectionHandoff(
  report: RalphReport,
  verdict: EvaluatorVerdict,
  maxHandoffChars: number,
): RalphReport {
  const base: RalphReport = { ...report, status: 'continue', blocker: null };
  const { findings } = verdict;
  const within = (handoff: RalphReport): boolean => sizeOf(handoff) <= maxHandoffChars;
  const whole = withFindings(base, findings, findings.length);
  if (within(whole)) return whole;
  // The most findings that fit whole, with the cut counted after them (adding a finding never shrinks the handoff).
  let kept = 0;
  while (kept < findings.length && within(withFindings(base, findings.slice(0, kept + 1), findings.length)))
    kept += 1;
  const fitted = withFindings(base, findings.slice(0, kept), findings.length);
  if (within(fitted)) {
    // The next finding, shortened to the room left, or counted with the rest when not even a word of it fits.
    const wholeOnes = findings.slice(0, kept);
    const shortened = shortenedToFit(
      findings[kept] as string,
      (finding) => within(withFindings(base, [...wholeOnes, finding], findings.length)),
      false,
    );
    return shortened === undefined ? fitted : withFindings(base, [...wholeOnes, shortened], findings.length);
  }
  // Not even the note and the count fit beside the worker's report: its evidence goes and its summary is shortened.
  const counted = withFindings({ ...base, evidence: [] }, [], findings.length);
  if (within(counted)) return counted;
  const summary = shortenedToFit(report.summary, (text) => within({ ...counted, summary: text }), true);
  if (summary !== undefined) return { ...counted, summary };
  const note = withFindings(base, [], 0);
  if (within(note)) return note;
  // Over the cap whatever is done: the note beside the smallest report the rules allow.
  return { ...note, evidence: [], summary: TRUNCATION_MARKER };
}
