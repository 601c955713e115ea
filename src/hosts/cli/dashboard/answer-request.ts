import type { IncomingMessage } from 'node:http';
import { answerTextProblem, MAX_ANSWER_CHARS, type PersonAnswer } from '../../../contract/answers.js';

/** The most a dashboard answer's body may hold (bytes): the longest answer, JSON-escaped, and a little more. */
const MAX_BODY_BYTES = MAX_ANSWER_CHARS * 6 + 1_024;

/** A request body, or undefined when it is longer than `limit` bytes (the request is then not read further). */
async function bodyOf(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The answer a dashboard POST carries (`{"text": "…"}` or `{"giveUp": true}`, JSON), from the dashboard; or why it
 * is none (its text empty or too long, as the fleet's client would refuse it).
 */
export async function answerOfRequest(
  request: IncomingMessage,
): Promise<{ answer: PersonAnswer } | { problem: string }> {
  const body = await bodyOf(request, MAX_BODY_BYTES);
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
