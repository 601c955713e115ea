import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The headers of every answer of ralph's local pages (the live inspector, the dashboard). */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Answers a request with `body` as JSON. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS });
  response.end(JSON.stringify(body));
}

/** Answers a request with an HTML page. */
export function sendHtml(response: ServerResponse, body: string): void {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS });
  response.end(body);
}

/** Answers a request with a one-line plain-text refusal, `<who>: <text>`. */
export function refusal(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
  who = 'ralph inspector',
): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    ...SECURITY_HEADERS,
    ...headers,
  });
  response.end(`${who}: ${text}\n`);
}

/** A request's target as a URL, or undefined when it is none (URL.parse is not in every Node 20). */
export function parsedTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/**
 * The header a page's own script sends its token in. A page's credential is never a cookie: browsers keep cookies
 * per host, not per port, so one set by 127.0.0.1:PORT would go to every other server on 127.0.0.1 (another local
 * user's among them).
 */
export const TOKEN_HEADER = 'x-ralph-token';

/** The token a request carries: in its query (`?token=`, for addresses and event streams) or in TOKEN_HEADER. */
export function givenToken(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers[TOKEN_HEADER];
  return url.searchParams.get('token') ?? (typeof header === 'string' ? header : undefined);
}

/** A page's access token: random, printed in its address, compared in constant time. */
export interface PageToken {
  readonly text: string;
  /** True when `given` is the token (a timing difference would tell the token byte by byte). */
  matches(given: string | null | undefined): boolean;
}

/** A fresh random token (32 bytes, base64url). */
export function newPageToken(): PageToken {
  const text = randomBytes(32).toString('base64url');
  const token = Buffer.from(text);
  return {
    text,
    matches(given) {
      if (typeof given !== 'string') return false;
      const bytes = Buffer.from(given);
      return bytes.length === token.length && timingSafeEqual(bytes, token);
    },
  };
}

/** Listens on host:port (0: any free port) and resolves with the port; rejects when it cannot listen. */
export async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
