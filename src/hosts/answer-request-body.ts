import type { IncomingMessage } from 'node:http';
import { MAX_ANSWER_CHARS } from '../contract/answers.js';

/** The largest body a page's answer request may have: the longest answer with every character JSON-escaped, and room. */
export const MAX_ANSWER_BODY_BYTES = MAX_ANSWER_CHARS * 6 + 1_024;

/**
 * A request's body as text, or undefined once it grew past `limit` bytes: the rest is drained unread, so an
 * oversized answer never sits in memory (the live page's `POST /answer` and the dashboard's answer both read so).
 */
export function requestBodyOf(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
