import { checkReport, handoffSize, isMissingReport } from './round-report.js';
import type { RalphReport } from './types.js';
import { isUnreadableReport } from './unreadable-round-report.js';

/**
 * The run's verdict on one round's raw output: plain data, so that the machine can keep it in its context and its
 * guards can read it instead of checking the report again.
 */
export type ReportReview =
  /** Nothing a report could be read from; `problem` is the provider's reason, when it gave one. */
  | { verdict: 'missing'; problem?: string }
  /** Not a report that fits the rules; `problem` says what is wrong. */
  | { verdict: 'malformed'; problem: string }
  /** A report that fits the rules but is `size` characters, over the handoff cap. */
  | { verdict: 'oversized'; size: number }
  /** A report that fits the rules and the cap: the next round's handoff. */
  | { verdict: 'accepted'; report: RalphReport };

/**
 * Reviews a child's raw output once: a provider's `unreadableReport` keeps its kind and reason, nothing at all is
 * missing, anything else is checked against the report rules and then against the handoff cap.
 */
export function reviewReport(raw: unknown, maxHandoffChars: number): ReportReview {
  if (isUnreadableReport(raw)) {
    const problem = String(raw.problem);
    return raw.kind === 'missing' ? { verdict: 'missing', problem } : { verdict: 'malformed', problem };
  }
  if (isMissingReport(raw)) return { verdict: 'missing' };
  const checked = checkReport(raw);
  if (!checked.ok) return { verdict: 'malformed', problem: checked.problem };
  const size = handoffSize(checked.report);
  return size > maxHandoffChars
    ? { verdict: 'oversized', size }
    : { verdict: 'accepted', report: checked.report };
}
