import { resolveMaxRounds } from '../contract/call.js';
import { reviewReport } from '../contract/round-report-review.js';
import type { RalphContext, RalphResumePoint } from './ralph.types.js';

/**
 * What is wrong with a resume point against the accepted call, or undefined: the next round must fit under the cap,
 * and the handoff must be a report the rules accept (a hand-edited recording is not trusted).
 */
export function resumePointProblem(context: RalphContext): string | undefined {
  const from = context.call.resumeFrom;
  if (from === null) return undefined;
  const cap = resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds);
  if (from.evaluating === true) return evaluatingResumeProblem(context, cap);
  if (from.awaitingAnswer === true) return questionResumeProblem(context, from, cap);
  if (!Number.isSafeInteger(from.round) || from.round < 0 || from.round >= cap)
    return `its finished rounds (${String(from.round)}) must be a whole number below the round cap ${cap}`;
  const counts = countsProblem(from, from.round + 1);
  if (counts !== undefined) return counts;
  if ((from.round === 0) !== (from.handoff === null))
    return from.round === 0 ? 'a run with no finished round has no handoff' : 'its last handoff is missing';
  if (from.handoff === null) return undefined;
  const review = reviewReport(from.handoff, context.call.maxHandoffChars);
  if (review.verdict !== 'accepted') return 'its last handoff is not a report the rules accept';
  if (review.report.status !== 'continue')
    return `its last handoff is ${review.report.status}: the run settled`;
  return undefined;
}

/**
 * What is wrong with a resume point that evaluates again (the run stopped while its evaluator checked a completion):
 * the run must have an evaluator, the round must be one the cap allows, and the handoff that round's complete report.
 */
function evaluatingResumeProblem(context: RalphContext, cap: number): string | undefined {
  const from = context.call.resumeFrom;
  if (from === null) return undefined;
  if (context.call.evaluator === undefined)
    return `it stopped while an evaluator was checking round ${String(from.round)}'s completion: resume it with an evaluator`;
  if (!Number.isSafeInteger(from.round) || from.round < 1 || from.round > cap)
    return `its evaluated round (${String(from.round)}) must be a whole number from 1 to the round cap ${cap}`;
  // The round being evaluated again is the last one whose spend may be unknown.
  const counts = countsProblem(from, from.round);
  if (counts !== undefined) return counts;
  const review = reviewReport(from.handoff, context.call.maxHandoffChars);
  if (review.verdict !== 'accepted' || review.report.status !== 'complete')
    return 'the report its evaluator was checking is not a complete report the rules accept';
  return undefined;
}

/**
 * What is wrong with a resume point that waits again for an answer (the run stopped while it waited): the run must
 * ask, the blocked round must be below the cap (an answer starts another), and the handoff that round's blocked report.
 */
function questionResumeProblem(
  context: RalphContext,
  from: RalphResumePoint,
  cap: number,
): string | undefined {
  if (context.call.guardRails.waitForAnswersMs === undefined)
    return `it stopped while round ${String(from.round)}'s blocker waited for an answer: resume it with --ask`;
  if (!Number.isSafeInteger(from.round) || from.round < 1 || from.round >= cap)
    return `its blocked round (${String(from.round)}) must be a whole number from 1 to below the round cap ${cap}`;
  const counts = countsProblem(from, from.round);
  if (counts !== undefined) return counts;
  const review = reviewReport(from.handoff, context.call.maxHandoffChars);
  if (review.verdict !== 'accepted' || review.report.status !== 'blocked')
    return 'the report whose blocker waited for an answer is not a blocked report the rules accept';
  return undefined;
}

/**
 * What is wrong with a resume point's counts, whichever way it picks up: its children started must cover its finished
 * rounds, and its uncounted rounds must be round numbers up to `lastUncounted`, the round it takes up again.
 */
function countsProblem(from: RalphResumePoint, lastUncounted: number): string | undefined {
  if (!Number.isSafeInteger(from.agentsStarted) || from.agentsStarted < from.round)
    return `its children started (${String(from.agentsStarted)}) must be a whole number of at least its finished rounds`;
  const uncounted = from.uncountedRounds ?? [];
  if (
    !Array.isArray(uncounted) ||
    !uncounted.every((n) => Number.isSafeInteger(n) && n >= 1 && n <= lastUncounted)
  )
    return `its uncounted rounds (${String(uncounted)}) must be round numbers up to the round it runs again`;
  return undefined;
}
