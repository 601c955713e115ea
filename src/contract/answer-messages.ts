import type { RalphQuestionEnding } from './answers.js';
import { formatDuration } from './duration.js';

/**
 * The texts of a run that asks a person (`--ask`). The reference has none: a blocked run ends there. They follow
 * its wording patterns and are spelled out here only.
 */

/** The refusal of an answer for a run that waits on no question (an inbox, the answer folder, `ralph answer`). */
export const notWaiting = (runId: string): string => `Ralph run ${runId} is not waiting for an answer`;

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

/** The line after a question: how long the run waits, and how to answer it from anywhere. */
export function waitingForAnswerText(runId: string, waitMs: number): string {
  return `Waiting up to ${formatDuration(waitMs)} for an answer. ${howToAnswer(runId)}`;
}

/** The prompt of a run that reads its answer from the terminal too (`ralph run --ask` at a TTY). */
export const TERMINAL_ANSWER_PROMPT =
  'Or type the answer here and press Enter (an empty line is ignored; Ctrl-D stops reading the terminal):';

/** Said once a person pressed Ctrl-D at the prompt: the run still takes an answer from `ralph answer`. */
export const TERMINAL_ANSWER_CLOSED =
  'No longer reading the terminal; the run still takes an answer from ralph answer until its wait runs out.';

/** A progress line of a question answered: the answer, on one line (the caller flattens it). */
export function questionAnsweredText(round: number, maxRounds: number, answer: string, by?: string): string {
  return `round ${round}/${maxRounds}'s blocker was answered${by === undefined ? '' : ` (${by})`}: ${answer}`;
}

/** A progress line of a question that got no answer: why the run stops waiting. */
export function questionUnansweredText(ending: RalphQuestionEnding & { maxRounds: number }): string {
  const why = {
    'timed-out': `nobody answered within ${formatDuration(ending.waitMs)}`,
    'given-up': 'a person chose not to answer',
    'time-limit': "the run's time limit ran out",
    unavailable: `the question could not be put to a person (${ending.detail ?? 'no answer source'})`,
  }[ending.reason];
  return `round ${ending.round}/${ending.maxRounds}: stopped waiting for an answer, ${why}`;
}

/** What `ralph answer` says once the answer is left for a run that waits. */
export function answerLeftText(runId: string, round: number, giveUp: boolean): string {
  return giveUp
    ? `Told run ${runId} that nobody will answer round ${round}'s blocker: it ends blocked.`
    : `Answered round ${round}'s blocker of run ${runId}: its next round starts with the answer.`;
}

/** What `ralph answer` adds when the process that waited is gone (killed): the answer waits for a resume. */
export function answerForGoneRunText(runId: string, pid: number, recording: string | undefined): string {
  return recording === undefined
    ? `Run ${runId}'s process ${pid} is gone, and it kept no recording (--record): nothing can resume it to take the answer.`
    : `Run ${runId}'s process ${pid} is gone; the answer is kept, and ralph resume ${recording} will take it.`;
}

/** The refusals of `ralph answer`'s own arguments. */
export const ANSWER_ARGUMENT_PROBLEMS = {
  both: 'ralph answer takes an answer or --give-up, not both',
  neither: 'ralph answer needs the answer text, or --give-up to end the run blocked',
} as const;

/** The refusal of a `ralph answer` target that names no run: neither a run id nor a readable recording. */
export function answerTargetProblem(target: string, why: string): string {
  return `ralph answer: ${JSON.stringify(target)} is neither a run id nor a run's recording (${why})`;
}
