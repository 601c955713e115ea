import type { IncomingMessage } from 'node:http';
import { answerTextProblem, MAX_ANSWER_CHARS, type PersonAnswer } from '../../../contract/answers.js';
import { MAX_ANSWER_BODY_BYTES, requestBodyOf } from '../../answer-request-body.js';

/**
 * The answer a dashboard POST carries (`{"text": "…"}` or `{"giveUp": true}`, JSON), from the dashboard; or why it
 * is none (its text empty or too long, as the fleet's client would refuse it).
 */
export async function answerOfRequest(
  request: IncomingMessage,
): Promise<{ answer: PersonAnswer } | { problem: string }> {
  const body = await requestBodyOf(request, MAX_ANSWER_BODY_BYTES);
  if (body === undefined) return { problem: `the answer is longer than ${MAX_ANSWER_CHARS} characters` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  const given = parsed as { text?: unknown; giveUp?: unknown } | null;
  if (typeof given !== 'object' || given === null) return { problem: 'the answer is not an object' };
  if (given.giveUp === true) return { answer: { kind: 'give-up', by: 'dashboard' } };
  if (typeof given.text !== 'string') return { problem: 'the answer has no text' };
  const problem = answerTextProblem(given.text);
  if (problem !== undefined) return { problem };
  return { answer: { kind: 'answer', text: given.text, by: 'dashboard' } };
}
