import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunModel } from '../../inspect/run-model.js';
import { renderRunPage, runPageUpdate } from '../../visualize/report-page.js';

/** The only address the inspector listens on: a run's page is for the person at this machine. */
export const INSPECT_HOST = '127.0.0.1';

/** Where the page's Server-Sent Events stream is. */
const EVENTS_PATH = '/events';

/** What starts an inspector. */
export interface InspectServerOptions {
  /** The port to listen on; 0 picks any free one. */
  port: number;
  /** The machine's statechart (visualizations/ralph.svg). */
  machineSvg: string;
}

/** A running live inspector: the run page on loopback, following the models it is given. */
export interface InspectServer {
  /** The page's address, `http://127.0.0.1:PORT/`. */
  readonly url: string;
  /** Shows this model: every page opened from now on, and every open page through its event stream. */
  update(model: RunModel): void;
  /** Sends the latest model to every open page, ends their streams and stops listening. */
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** One SSE message carrying the page's update for this model. */
const eventFor = (model: RunModel | null): string =>
  `event: run\ndata: ${JSON.stringify(runPageUpdate(model))}\n\n`;

/**
 * Starts the live inspector on 127.0.0.1. `GET /` serves the run page for the latest model (a waiting page before
 * the first); `GET /events` is its Server-Sent Events stream, which sends the latest model at once and then every
 * new one. Models that arrive in one burst (a run's events come several to a transition) go out as one message, the
 * latest. Requests naming any host but the loopback address are refused, so a web page elsewhere cannot reach the
 * run through a DNS name rebound to 127.0.0.1. Rejects when the port cannot be listened on.
 */
export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  let latest: RunModel | null = null;
  let pending = false;
  const streams = new Set<ServerResponse>();

  const flush = () => {
    pending = false;
    if (streams.size === 0) return;
    const message = eventFor(latest);
    for (const stream of streams) stream.write(message);
  };

  const server = createServer((request, response) => handle(request, response));
  let allowedHosts: Set<string> = new Set();

  function handle(request: IncomingMessage, response: ServerResponse): void {
    if (!allowedHosts.has(request.headers.host ?? '')) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      response.end('ralph inspector: this page is served to 127.0.0.1 only\n');
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405, {
        allow: 'GET',
        'content-type': 'text/plain; charset=utf-8',
        ...SECURITY_HEADERS,
      });
      response.end('ralph inspector: GET only\n');
      return;
    }
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS });
      response.end(
        renderRunPage(latest, { machineSvg: options.machineSvg, live: { eventsUrl: EVENTS_PATH } }),
      );
      return;
    }
    if (path === EVENTS_PATH) {
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...SECURITY_HEADERS });
      response.write(`retry: 1000\n\n${eventFor(latest)}`);
      streams.add(response);
      response.on('close', () => streams.delete(response));
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
    response.end('ralph inspector: not found\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, INSPECT_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  allowedHosts = new Set([`${INSPECT_HOST}:${port}`, `localhost:${port}`]);

  return {
    url: `http://${INSPECT_HOST}:${port}/`,
    update(model) {
      latest = model;
      if (pending) return;
      pending = true;
      setImmediate(flush);
    },
    async close() {
      if (pending) flush();
      // Every stream's last message is handed to the system before the sockets are closed, so no page misses how
      // the run ended.
      await Promise.all([...streams].map((stream) => new Promise<void>((resolve) => stream.end(resolve))));
      streams.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
