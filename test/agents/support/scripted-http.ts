import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request's body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk;
  return text;
}

/** The JSON of a body, or undefined when it is empty or not JSON. */
export function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Listens on an ephemeral port of 127.0.0.1; resolves with the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes a scripted server: its held responses destroyed, every connection closed. */
export function closeScriptedServer(server: Server, held: Set<ServerResponse>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** Answers with a JSON error body, as the model APIs do. */
export function sendError(res: ServerResponse, status: number, message: string, type?: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, ...(type === undefined ? {} : { type }) } }));
}

/** Promises of "the n-th call has arrived", kept by a scripted server that counts its calls. */
export function callWaiters() {
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    /** Says that `calls` calls have arrived: every waiter for at most that many is woken. */
    arrived(calls: number): void {
      for (const waiter of waiters.filter((w) => w.count <= calls)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    /** Resolves once `count` calls have arrived (`calls` have so far). */
    waitFor(count: number, calls: number): Promise<void> {
      return calls >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
}
