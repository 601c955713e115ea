import type { RalphReport } from './types.js';

/**
 * Every user-visible text of the ralph tool, word for word from the reference (seeds/ralph-tool-reference.txt).
 * Nothing else in the package spells these out.
 */

/** Refusal: the objective is missing, not a string, or blank. */
export const OBJECTIVE_EMPTY = 'Ralph objective must be a non-empty string';

/** Refusal: maxRounds is not a positive safe integer. */
export const MAX_ROUNDS_INVALID = 'Ralph maxRounds must be a positive safe integer';

/** Refusal: the call has no calling agent. */
export const CALLING_AGENT_MISSING = 'Ralph tool requires a calling agent (exec.agent was undefined)';

/** Cancellation. */
export const WORKFLOW_CANCELLED = 'Ralph workflow was cancelled';

/** Said after a failed round when no round had reported yet. */
export const NO_PREVIOUS_HANDOFF = 'No previous handoff was available.';

/** Introduces the last good report after a failed round. */
export const LAST_SUCCESSFUL_HANDOFF = 'Last successful handoff:';

/** Appended to a result text that was cut at maxResultChars. */
export const TRUNCATION_MARKER = '… [truncated]';

/** Refusal: the call asks for more rounds than the ceiling allows. */
export function maxRoundsExceedsCeiling(value: number, ceiling: number): string {
  return `Ralph maxRounds ${value} exceeds the deployment ceiling ${ceiling}`;
}

/** Refusal: the configured provider is not in the registry. */
export function providerNotRegistered(name: string): string {
  return `Ralph subagent provider "${name}" is not registered`;
}

/** Refusal of a resume point that the accepted call cannot continue from (not a reference text: resume is ours). */
export function resumeRefused(problem: string): string {
  return `Ralph cannot resume the run: ${problem}`;
}

/** Refusal: the configured provider cannot return structured output. */
export function providerLacksStructuredOutput(name: string): string {
  return `Ralph subagent provider "${name}" does not support structured output`;
}

/** Refusal: the configured provider would seed children with the parent's context. */
export function providerInheritsParentContext(name: string): string {
  return `Ralph subagent provider "${name}" inherits parent context; Ralph requires a fresh provider`;
}

/** A fatal failure of the workflow itself (provider start, missing, malformed or oversized report). */
export function workflowFailed(detail: string): string {
  return `Ralph workflow failed: ${detail}`;
}

/** The first line after an ordinary child failure. */
export function roundChildFailed(round: number): string {
  return `Ralph round ${round} child failed before producing a structured report.`;
}

/** The whole ordinary-child-failure text: the failed round, then the last good handoff or the note that none was. */
export function childFailureMessage(round: number, lastHandoff: RalphReport | null): string {
  const handoff =
    lastHandoff === null
      ? NO_PREVIOUS_HANDOFF
      : `${LAST_SUCCESSFUL_HANDOFF}\n${JSON.stringify(lastHandoff, null, 2)}`;
  return `${roundChildFailed(round)}\n${handoff}`;
}

/** `1 round`, `2 rounds`: how the reference counts rounds in its lines. */
export function roundCount(n: number): string {
  return n === 1 ? '1 round' : `${n} rounds`;
}

/** The budget-limited label. */
export function budgetLimitedLabel(rounds: number): string {
  return `Ralph reached its ${roundCount(rounds)} limit; the worker reported work remaining.`;
}

/** The fixed caveat on every worker-reported outcome (seed: Known Limitations). */
export const WORKER_REPORT_CAVEAT = 'Completion and blockers are worker reports, not independent evaluation.';

/** Refusal: a process that is itself a Ralph child, nested `depth` deep, may not start another child. */
export function ralphDepthLimitReached(depth: number, limit: number): string {
  return `Ralph depth limit reached: this process runs at Ralph depth ${depth} (RALPH_DEPTH=${depth}) and the limit is ${limit}, so it may not start another Ralph child`;
}

/** Refusal: an agent command given as one string cannot be split into argv without a shell. */
export function agentCommandInvalid(command: string, problem: string): string {
  return `Ralph agent command ${JSON.stringify(command)} is invalid: ${problem}`;
}
