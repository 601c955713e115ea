import type { RalphQuestionEnding } from './answers.js';
import { formatDuration } from './duration.js';

/**
 * The texts of a run that asks a person (`--ask`). The reference has none: a blocked run ends there. They follow
 * its wording patterns and are spelled out here only.
 */

/** The line a blocked run's result text adds when it waited for an answer that did not come. */
export function unansweredLine(ending: RalphQuestionEnding): string {
  switch (ending.reason) {
    case 'timed-out':
      return `Nobody answered round ${ending.round}'s blocker within ${formatDuration(ending.waitMs)}; the run ended blocked.`;
    case 'given-up':
      return `A person chose not to answer round ${ending.round}'s blocker; the run ended blocked.`;
    case 'time-limit':
      return `The run's time limit ran out while it waited for an answer to round ${ending.round}'s blocker; the run ended blocked.`;
    case 'unavailable':
      return `Round ${ending.round}'s blocker could not be put to a person (${ending.detail ?? 'no answer source'}); the run ended blocked.`;
  }
}

/** How a waiting question is put to a person at a terminal or in a notification. */
export function questionText(round: number, question: string): string {
  return `Round ${round} is blocked and asks: ${question}`;
}

/** How to answer a waiting run, for a person who reads a notification or a terminal line. */
export function howToAnswer(runId: string): string {
  return `Answer with: ralph answer ${runId} "your answer"  (or --give-up to end it blocked)`;
}

/** The name of the tool that answers a waiting run, beside `ralph` on an MCP server or in an AI SDK app. */
export const RALPH_ANSWER_TOOL = 'ralph_answer';

/** The description of the `ralph_answer` tool, as a model or a client reads it. */
export const RALPH_ANSWER_DESCRIPTION =
  'Answers the question of a ralph run that waits for a person: a round reported blocked, and the pending ralph ' +
  "call's progress carries its run id and the blocker. Give { runId, answer } to start the next round with the " +
  "answer (labelled as a person's), or { runId, giveUp: true } to end the run blocked now. Answer only with what a " +
  'person said: the next round trusts it as theirs.';

/** How to answer through the tool, for a progress message or a notification. */
export function howToAnswerWithTool(runId: string): string {
  return `Answer with the ${RALPH_ANSWER_TOOL} tool: { "runId": ${JSON.stringify(runId)}, "answer": "…" } (or "giveUp": true to end it blocked)`;
}

/** The progress message of a call whose run waits for an answer: the question, how long, and how to answer. */
export function questionProgressText(
  question: { runId: string; round: number; maxRounds: number; question: string; waitMs: number },
  howTo: string,
): string {
  return (
    `Round ${question.round}/${question.maxRounds} is blocked and asks: ${question.question}\n` +
    `The run waits up to ${formatDuration(question.waitMs)} for an answer. ${howTo}`
  );
}

/** The progress message said again while a run waits: the question, how long it has waited, and the tool. */
export function stillWaitingText(
  question: { runId: string; round: number; question: string; waitMs: number },
  waitedMs: number,
  tool: string,
): string {
  // Whole seconds: a reminder's own timing is no news to anyone.
  const waited = formatDuration(Math.max(1, Math.round(waitedMs / 1000)) * 1000);
  return (
    `Round ${question.round} still waits for an answer (${waited} of ${formatDuration(question.waitMs)}): ` +
    `${question.question}\nAnswer with the ${tool} tool, runId ${JSON.stringify(question.runId)}`
  );
}

/** The progress message of a waiting run that got its answer. */
export function answeredProgressText(round: number, by: string | undefined): string {
  return `Round ${round}'s blocker was answered${by === undefined ? '' : ` (by ${by})`}; round ${round + 1} starts with the answer`;
}

/** What `ralph_answer` says when its answer reached the waiting run. */
export function answerTaken(runId: string, round: number): string {
  return `Ralph run ${runId} took the answer to round ${round}'s blocker; round ${round + 1} starts with it`;
}

/** What `ralph_answer` says when a waiting run was told nobody will answer. */
export function giveUpTaken(runId: string, round: number): string {
  return `Ralph run ${runId} stops waiting for an answer to round ${round}'s blocker; it ends blocked`;
}

/** The refusal of a `ralph_answer` call that gives neither an answer nor giveUp, or both. */
export const ANSWER_OR_GIVE_UP =
  'Ralph cannot tell what to do: give either an answer (a non-empty string) or giveUp: true, not both';

/** The refusal of `ralph_answer` arguments of the wrong shape (the zod issues, in one line). */
export function answerArgsInvalid(issues: string): string {
  return `Ralph cannot read the ${RALPH_ANSWER_TOOL} call: ${issues}`;
}

/** The text of a `run.question` notification: the question and every way the host offers to answer it. */
export function questionNotificationText(
  round: number,
  question: string,
  waitMs: number,
  ways: readonly string[],
): string {
  return [
    questionText(round, question),
    `The run waits up to ${formatDuration(waitMs)} for an answer.`,
    ...ways,
  ].join('\n');
}
