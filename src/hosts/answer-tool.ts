import { z } from 'zod';
import type { AnswerInbox } from '../actors/answer-inbox.js';
import {
  ANSWER_OR_GIVE_UP,
  answerArgsInvalid,
  answerTaken,
  giveUpTaken,
} from '../contract/answer-messages.js';
import { answerTextProblem, MAX_ANSWER_CHARS } from '../contract/answers.js';
import { formatIssues } from '../contract/zod-issues.js';

// The `ralph_answer` tool, the same on every host that offers it (an MCP server, an AI SDK app): its arguments, how
// they are read, and what a call says. The host gives it the inbox its ralph calls wait on.

/** The arguments of `ralph_answer`: the run, and either the person's answer or the word to stop waiting. */
export const answerArgsSchema = z.strictObject({
  runId: z.string().min(1).max(200),
  answer: z.string().optional(),
  giveUp: z.boolean().optional(),
});

/** The arguments of `ralph_answer`, as its schema reads them. */
export type AnswerToolArgs = z.infer<typeof answerArgsSchema>;

/** The JSON Schema a client or model is shown (the answer's bound included; the tool's own checks judge a call). */
export const answerArgsJsonSchema = Object.freeze({
  type: 'object',
  properties: {
    runId: { type: 'string', description: "The waiting run's id, from the pending ralph call's progress." },
    answer: {
      type: 'string',
      maxLength: MAX_ANSWER_CHARS,
      description: "The person's answer to the blocker, word for word.",
    },
    giveUp: { type: 'boolean', description: 'True to end the run blocked now instead of answering.' },
  },
  required: ['runId'],
  additionalProperties: false,
} as const);

/** What a `ralph_answer` call came to: the text to show, and whether it was refused. */
export interface AnswerToolOutcome {
  text: string;
  refused: boolean;
}

const refused = (text: string): AnswerToolOutcome => ({ text, refused: true });

/**
 * Hands a `ralph_answer` call to `inbox`: its arguments are checked here (shape, one of answer or giveUp, the
 * answer's text), and a run that is not waiting refuses it. `by` says who answered, as the host knows them.
 */
export function answerThroughInbox(inbox: AnswerInbox, args: unknown, by: string): AnswerToolOutcome {
  const parsed = answerArgsSchema.safeParse(args ?? {});
  if (!parsed.success) return refused(answerArgsInvalid(formatIssues(parsed.error)));
  const { runId, answer, giveUp } = parsed.data;
  if ((answer === undefined) === (giveUp !== true)) return refused(ANSWER_OR_GIVE_UP);
  if (answer !== undefined) {
    const problem = answerTextProblem(answer);
    if (problem !== undefined) return refused(problem);
    const delivery = inbox.answer(runId, answer, by);
    return delivery.delivered
      ? { text: answerTaken(runId, delivery.round), refused: false }
      : refused(delivery.problem);
  }
  const delivery = inbox.giveUp(runId, by);
  return delivery.delivered
    ? { text: giveUpTaken(runId, delivery.round), refused: false }
    : refused(delivery.problem);
}
