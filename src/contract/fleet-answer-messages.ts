import { answerTextProblem, type PersonAnswer } from './answers.js';

/**
 * The texts of a fleet run that waits for a person's answer (`ralph submit --ask`, `ralph answer` of a fleet run,
 * `ralph status`, the dashboard). The reference has none; they follow answer-messages.ts.
 */

/** Refusal: the run publishes no question (it never asked, or its wait is over). */
export function fleetNotWaiting(runId: string, state: string): string {
  return `ralph: fleet run ${runId} is not waiting for an answer (it is ${state})`;
}

/** Refusal: the question has its answer already (given and not yet taken by the run): the first answer counts. */
export function fleetAnsweredAlready(runId: string, round: number): string {
  return `ralph: round ${round}'s blocker of fleet run ${runId} has its answer already; the first answer counts`;
}

/** Refusal: what was given is not an answer (its text empty or too long, or not an answer at all). */
export function answerRefused(answer: unknown): string {
  const text = (answer as { text?: unknown } | null)?.text;
  return (typeof text === 'string' ? answerTextProblem(text) : undefined) ?? 'Ralph cannot take this answer';
}

/** What `ralph answer` says once the answer is in the database. */
export function fleetAnswerSent(runId: string, round: number, answer: PersonAnswer): string {
  const what = answer.kind === 'give-up' ? 'the word to give up on' : 'the answer to';
  return `ralph answer: sent ${what} round ${round}'s blocker of fleet run ${runId}; the worker that runs it next takes it`;
}

/** The status line's part of a run that waits: the round, until when, and the question. */
export function fleetWaitingText(round: number, deadline: number, question: string): string {
  return `waiting for an answer to round ${round}'s blocker until ${new Date(deadline).toISOString()}: ${question}`;
}
