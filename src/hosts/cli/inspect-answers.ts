import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AnswerInbox } from '../../actors/answer-inbox.js';
import {
  answerMalformed,
  answerNotForRound,
  answerNotFromPage,
  answerNotJson,
  answerTooLarge,
  LIVE_PAGE_ANSWERER,
} from '../../contract/answer-page-messages.js';
import { answerTextProblem, personAnswerSchema } from '../../contract/answers.js';
import { formatIssues } from '../../contract/zod-issues.js';
import { MAX_ANSWER_BODY_BYTES, requestBodyOf } from '../answer-request-body.js';
import { sendJson } from './loopback-page.js';

/** Where the live page posts a person's answer. */
export const ANSWER_PATH = '/answer';

/** The largest body an answer's request may have (re-exported for the page's tests). */
export { MAX_ANSWER_BODY_BYTES };

/** What the page posts: the round it answers (so an answer never lands on a later question) and the answer. */
const answerPostSchema = z.strictObject({
  round: z.number().int().positive(),
  answer: personAnswerSchema,
});

/** Parses the posted text as an answer to a round, or says what is wrong with it. */
function parsedAnswer(text: string): z.infer<typeof answerPostSchema> | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'not JSON' };
  }
  const answer = (value as { answer?: { kind?: unknown; text?: unknown } } | null)?.answer;
  // The person's own words for what is wrong with their text, where the schema would say it in a schema's words.
  if (answer?.kind === 'answer' && typeof answer.text === 'string') {
    const problem = answerTextProblem(answer.text);
    if (problem !== undefined) return { problem };
  }
  const parsed = answerPostSchema.safeParse(value);
  return parsed.success ? parsed.data : { problem: formatIssues(parsed.error) };
}

/**
 * `POST /answer` of the live page (its token already checked): takes `{ round, answer }` as JSON from the page's own
 * origin and hands it to the run's inbox, named as the live page's. Refused, delivering nothing: another origin
 * (403), no JSON (415), a body past MAX_ANSWER_BODY_BYTES (413), no answer or an empty or oversized one (400), a round
 * that does not wait (409). Answers 200 `{ delivered: true, round }`.
 */
export async function takeAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  inbox: AnswerInbox,
): Promise<void> {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${request.headers.host ?? ''}`)
    return sendJson(response, 403, { error: answerNotFromPage });
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
    return sendJson(response, 415, { error: answerNotJson });
  const text = await requestBodyOf(request, MAX_ANSWER_BODY_BYTES);
  if (text === undefined) {
    response.setHeader('connection', 'close');
    return sendJson(response, 413, { error: answerTooLarge(MAX_ANSWER_BODY_BYTES) });
  }
  const posted = parsedAnswer(text);
  if ('problem' in posted) return sendJson(response, 400, { error: answerMalformed(posted.problem) });
  const waiting = inbox.waiting().find((question) => question.round === posted.round);
  if (waiting === undefined) return sendJson(response, 409, { error: answerNotForRound(posted.round) });
  const delivery =
    posted.answer.kind === 'answer'
      ? inbox.answer(waiting.runId, posted.answer.text, LIVE_PAGE_ANSWERER)
      : inbox.giveUp(waiting.runId, LIVE_PAGE_ANSWERER);
  if (!delivery.delivered) return sendJson(response, 409, { error: delivery.problem });
  sendJson(response, 200, delivery);
}
