import { describeChangedFiles } from './changed-files.js';
import { commandText } from './guard-rail-messages.js';
import { roundCount } from './messages.js';

/**
 * The texts of the opt-in independent evaluator. The reference defers evaluators, so it has none of them; they
 * follow its wording patterns (`Ralph complete: …`, `Ralph workflow failed: …`, `Ralph subagent provider "x" …`).
 */

/** The complete label of a run whose completion an independent evaluator accepted (and a verify command, if set). */
export function evaluatedCompleteLabel(
  rounds: number,
  evaluator: string,
  verifiedBy?: readonly string[],
): string {
  const verified =
    verifiedBy === undefined
      ? ''
      : `, the verify command \`${commandText(verifiedBy)}\` confirmed it (exit 0)`;
  return `Ralph complete: the worker reported the objective complete after ${roundCount(rounds)}${verified}, and an independent evaluator (${evaluator}) accepted it.`;
}

/** The line after a budget-limited label when an evaluator rejected the last completion a worker reported. */
export function lastRejectionNote(round: number, findings: number): string {
  return `The completion reported in round ${round} was rejected by an independent evaluator (${findings === 1 ? '1 finding' : `${findings} findings`}); the final report carries its findings.`;
}

/** The line after the time-limit label when the time ran out while an evaluator was checking a completion. */
export function unevaluatedRoundLine(round: number): string {
  return `Round ${round} reported the objective complete, but the time ran out before the evaluator gave its verdict: the completion was not accepted.`;
}

/** The first next step of a handoff after a rejected completion. */
export const EVALUATOR_REJECTED_STEP =
  'An independent evaluator checked the workspace and rejected the reported completion; address its findings:';

/** One of the evaluator's findings as a next step. */
export const evaluatorFindingStep = (finding: string): string => `Evaluator finding: ${finding}`;

/** The last next step when findings were left out at the handoff cap. */
export function evaluatorFindingsCut(count: number): string {
  return `… ${count === 1 ? '1 more finding was' : `${count} more findings were`} cut at the handoff cap.`;
}

/** Refusal: the configured evaluator provider is not in the registry. */
export function evaluatorNotRegistered(name: string): string {
  return `Ralph evaluator provider "${name}" is not registered`;
}

/** Refusal: the configured evaluator provider cannot return structured output (a verdict could not be checked). */
export function evaluatorLacksStructuredOutput(name: string): string {
  return `Ralph evaluator provider "${name}" does not support structured output`;
}

/** Refusal: the configured evaluator provider would seed its child with the parent's context. */
export function evaluatorInheritsParentContext(name: string): string {
  return `Ralph evaluator provider "${name}" inherits parent context; Ralph requires a fresh evaluator`;
}

/** Refusal: a cost budget with an evaluator that does not say what it cost. */
export function evaluatorLacksCostReports(name: string): string {
  return `Ralph cannot hold the cost limit: evaluator provider "${name}" does not report what its evaluations cost. Use an evaluator that reports cost, or drop the cost limit.`;
}

/** Workflow failure: the evaluator could not be started. */
export function evaluatorCouldNotStart(name: string, round: number, problem: string): string {
  return `evaluator provider "${name}" failed to start the evaluation of round ${round}: ${problem}`;
}

/** Workflow failure: the evaluator failed before it gave a verdict. */
export function evaluatorFailed(round: number, problem: string): string {
  return `the evaluator of round ${round} failed before it gave a verdict: ${problem}`;
}

/** Workflow failure: the evaluator finished without a verdict. */
export function verdictMissing(round: number): string {
  return `the evaluator of round ${round} finished without a structured verdict`;
}

/** Workflow failure: the evaluator's verdict breaks the verdict rules. */
export function verdictMalformed(round: number, problem: string): string {
  return `the evaluator's verdict on round ${round} is malformed: ${problem}`;
}

/** Workflow failure: the evaluator's verdict is over the handoff cap. */
export function verdictOversized(round: number, size: number, cap: number): string {
  return `the evaluator's verdict on round ${round} is ${size} characters, over the handoff cap of ${cap}`;
}

/** Workflow failure: the evaluator changed the workspace it was to judge (the files named, bounded). */
export function evaluatorChangedWorkspace(round: number, files: readonly string[]): string {
  return `the evaluator of round ${round} changed the workspace, which an evaluator must not do: ${describeChangedFiles(files)}`;
}

/** Workflow failure: the evaluator gave no verdict within the round timeout. */
export function evaluatorTimedOut(round: number, timeout: string): string {
  return `the evaluator of round ${round} timed out: it gave no verdict within the round timeout of ${timeout} and was stopped`;
}
