import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a loopback receiver does with one request: answer 503, answer 404, never answer, or take it (200). */
export type ReceiverAnswer = 'refuse' | 'missing' | 'hang' | 'accept';

/** A request the receiver got. */
export interface ReceivedRequest {
  path: string;
  contentType: string | undefined;
  body: string;
  answer: ReceiverAnswer;
}

/** A webhook receiver on 127.0.0.1: answers its requests as its script says, then takes every later one. */
export interface NotifyReceiver {
  /** `http://127.0.0.1:<port>/hook/secret-token`: a path like a chat webhook's, whose path is its secret. */
  url: string;
  /** Every request so far, in order. */
  requests: ReceivedRequest[];
  /** How many requests it never answered were closed by the sender. */
  hungUp(): number;
  /** The bodies it took (answered 200), parsed. */
  accepted(): unknown[];
  /** Resolves once it has taken `count` requests (a deadline only so a broken test fails instead of hanging). */
  untilAccepted(count: number): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Starts a receiver whose n-th request gets `script[n]` (past the script: accept). */
export async function startReceiver(script: ReceiverAnswer[] = []): Promise<NotifyReceiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let hungUp = 0;
  const waiters: (() => void)[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = script[requests.length] ?? 'accept';
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      requests.push({ path: request.url ?? '', contentType: request.headers['content-type'], body, answer });
      if (answer === 'refuse') response.writeHead(503).end('not now');
      else if (answer === 'missing') response.writeHead(404).end('no such hook');
      else if (answer === 'accept') response.writeHead(200).end('ok');
      else {
        hanging.add(response);
        response.on('close', () => {
          if (hanging.delete(response)) hungUp++;
        });
      }
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const accepted = () =>
    requests.filter((r) => r.answer === 'accept').map((r) => JSON.parse(r.body) as unknown);
  return {
    url: `http://127.0.0.1:${port}/hook/secret-token`,
    requests,
    hungUp: () => hungUp,
    accepted,
    async untilAccepted(count) {
      const deadline = Date.now() + 30_000;
      while (accepted().length < count) {
        if (Date.now() > deadline) throw new Error(`gave up waiting for ${count} accepted notification(s)`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1_000).unref();
        });
      }
      return accepted();
    },
    async close() {
      const left = [...hanging];
      hanging.clear();
      for (const response of left) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL nothing listens on: a port that was free a moment ago (connections to it are refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook/secret-token`;
}
