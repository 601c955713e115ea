import { unansweredLine } from '../contract/answer-messages.js';
import { DEFAULT_MAX_RESULT_CHARS } from '../contract/config.js';
import {
  evaluatedCompleteLabel,
  lastRejectionNote,
  unevaluatedRoundLine,
} from '../contract/evaluator-messages.js';
import {
  costLimitLabel,
  idleLimitLabel,
  timeLimitLabel,
  uncountedSpendNote,
  unfinishedRoundLine,
  verifiedCompleteLabel,
} from '../contract/guard-rail-messages.js';
import { budgetLimitedLabel, roundCount, WORKER_REPORT_CAVEAT } from '../contract/messages.js';
import type { RalphEnvelope } from '../contract/types.js';
import { truncateText } from './truncate.js';

/**
 * The first line of a result: what the worker reported, never an independent verdict, unless a verify command
 * accepted the completion; a guard rail that ended the run budget-limited is named in place of the round cap.
 */
export function resultLabel(envelope: RalphEnvelope): string {
  const { status, rounds, limit, verifiedBy, evaluation } = envelope.result;
  switch (status) {
    case 'complete':
      if (evaluation?.verdict === 'accept')
        return evaluatedCompleteLabel(rounds, evaluation.evaluator, verifiedBy);
      if (verifiedBy !== undefined) return verifiedCompleteLabel(rounds, verifiedBy);
      return `Ralph complete: the worker reported the objective complete after ${roundCount(rounds)}. ${WORKER_REPORT_CAVEAT}`;
    case 'blocked':
      return `Ralph blocked: the worker reported a blocker after ${roundCount(rounds)}. ${WORKER_REPORT_CAVEAT}`;
    case 'budget-limited':
      if (limit?.kind === 'time') return timeLimitLabel(limit.maxWallTimeMs);
      if (limit?.kind === 'idle') return idleLimitLabel(limit.maxIdleRounds);
      if (limit?.kind === 'cost') return costLimitLabel(limit.maxCostUsd, limit.spentUsd);
      return budgetLimitedLabel(rounds);
  }
}

/**
 * The line after the label, when the label's figure leaves something out: a resumed run's cost limit does not count
 * what its interrupted rounds spent (unknown), and a time limit that stopped a round counts that round in `Rounds:`
 * while the final report is the round before's. Undefined when there is nothing to add.
 */
export function resultNote(envelope: RalphEnvelope): string | undefined {
  const { limit, evaluation, status, rounds, question } = envelope.result;
  if (question !== undefined) return unansweredLine(question);
  if (limit?.kind === 'time' && limit.unevaluatedRound !== undefined)
    return unevaluatedRoundLine(limit.unevaluatedRound);
  if (status === 'budget-limited' && evaluation?.verdict === 'reject' && evaluation.round === rounds)
    return lastRejectionNote(evaluation.round, evaluation.findings.length);
  if (limit?.kind === 'cost' && (limit.uncountedRounds ?? []).length > 0) {
    return uncountedSpendNote(limit.uncountedRounds ?? []);
  }
  return limit?.kind === 'time' && limit.unfinishedRound !== undefined
    ? unfinishedRoundLine(limit.unfinishedRound)
    : undefined;
}

/** The full native result text: the label (and its note), the rounds run, and the pretty-printed final report. */
export function renderFullResultText(envelope: RalphEnvelope): string {
  const note = resultNote(envelope);
  return [
    resultLabel(envelope),
    ...(note === undefined ? [] : [note]),
    `Rounds: ${envelope.result.rounds}`,
    '',
    'Final report:',
    JSON.stringify(envelope.result.report, null, 2),
  ].join('\n');
}

/** The native result text bounded by `maxResultChars`, the truncation marker included. */
export function renderResultText(
  envelope: RalphEnvelope,
  maxResultChars: number = DEFAULT_MAX_RESULT_CHARS,
): string {
  return truncateText(renderFullResultText(envelope), maxResultChars);
}
