import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AnswerInbox } from '../../actors/answer-inbox.js';
import type { RunModel } from '../../inspect/run-model.js';
import { renderRunPage, runPageUpdate } from '../../visualize/report-page.js';
import { ANSWER_PATH, takeAnswer } from './inspect-answers.js';
import {
  givenToken,
  listenOn,
  newPageToken,
  parsedTarget,
  refusal,
  SECURITY_HEADERS,
} from './loopback-page.js';

/** The only address the inspector listens on: a run's page is for the person at this machine. */
export const INSPECT_HOST = '127.0.0.1';

/** Where the page's Server-Sent Events stream is. */
const EVENTS_PATH = '/events';

/** How many pages may follow the run at once: each open stream holds a socket and its buffers. */
export const MAX_EVENT_STREAMS = 16;

/** What starts an inspector. */
export interface InspectServerOptions {
  /** The port to listen on; 0 picks any free one. */
  port: number;
  /** The machine's statechart (visualizations/ralph.svg). */
  machineSvg: string;
  /**
   * Where the page's answers go (`--ask`): with it, a question the run waits on shows an answer box, whose answer
   * `POST /answer` hands to this inbox. Absent: the page only shows.
   */
  answers?: AnswerInbox;
}

/** A running live inspector: the run page on loopback, following the models it is given. */
export interface InspectServer {
  /** The page's address with its token, `http://127.0.0.1:PORT/?token=…`: nothing of the run is served without it. */
  readonly url: string;
  /** Shows this model: every page opened from now on, and every open page through its event stream. */
  update(model: RunModel): void;
  /** Sends the latest model to every open page, ends their streams and stops listening. */
  close(): Promise<void>;
}

/** One SSE message carrying the page's update for this model. */
const eventFor = (model: RunModel | null): string =>
  `event: run\ndata: ${JSON.stringify(runPageUpdate(model))}\n\n`;

/**
 * Starts the live inspector on 127.0.0.1. `GET /` serves the run page for the latest model (a waiting page before
 * the first); `GET /events` is its Server-Sent Events stream, which sends the latest model at once and then every
 * new one. Models that arrive in one burst (a run's events come several to a transition) go out as one message, the
 * latest. Requests naming any host but the loopback address are refused, so a web page elsewhere cannot reach the
 * run through a DNS name rebound to 127.0.0.1. Every other local user can reach 127.0.0.1 too, so, as Jupyter does,
 * the printed address carries a random token that the page and its stream require (in the query, or TOKEN_HEADER),
 * compared in constant time; without it, 403 and nothing of the run. No cookie carries it: a browser would send a cookie of
 * 127.0.0.1 to every port there, another local user's server too. At most
 * MAX_EVENT_STREAMS pages follow the run at once; one more gets 503. With `answers`, `POST /answer` (the token
 * required too, in TOKEN_HEADER) takes a person's answer to the question the run waits on (see takeAnswer). Rejects
 * when the port cannot be listened on.
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
  // A connection the system accepted just before the close (a browser opens spare ones ahead of need) reaches the
  // server after `closeAllConnections`: it would hold the close open for as long as the browser keeps it.
  let closing = false;
  server.on('connection', (socket) => {
    if (closing) socket.destroy();
  });
  let allowedHosts: Set<string> = new Set();
  const token = newPageToken();
  const tokenText = token.text;

  function handle(request: IncomingMessage, response: ServerResponse): void {
    if (!allowedHosts.has(request.headers.host ?? '')) {
      refusal(response, 403, 'this page is served to 127.0.0.1 only');
      return;
    }
    const answers = options.answers;
    if (request.method !== 'GET' && (request.method !== 'POST' || answers === undefined)) {
      if (answers === undefined) refusal(response, 405, 'GET only', { allow: 'GET' });
      else refusal(response, 405, 'GET or POST only', { allow: 'GET, POST' });
      return;
    }
    const url = parsedTarget(request.url);
    // A target no URL parser takes (`//[`) is no page of the run; thrown here, it would end the run's process.
    if (url === undefined) {
      refusal(response, 400, 'bad request');
      return;
    }
    if (!token.matches(givenToken(request, url))) {
      refusal(response, 403, 'open the address ralph printed (it carries the token)');
      return;
    }
    if (request.method === 'POST' && answers !== undefined) {
      if (url.pathname !== ANSWER_PATH) refusal(response, 404, 'not found');
      // A body that fails to arrive leaves nothing delivered; its socket goes.
      else takeAnswer(request, response, answers).catch(() => response.destroy());
      return;
    }
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS });
      response.end(
        renderRunPage(latest, {
          machineSvg: options.machineSvg,
          live: {
            eventsUrl: `${EVENTS_PATH}?token=${tokenText}`,
            ...(answers === undefined ? {} : { answerUrl: ANSWER_PATH }),
          },
        }),
      );
      return;
    }
    if (url.pathname === EVENTS_PATH) {
      if (streams.size >= MAX_EVENT_STREAMS) {
        refusal(response, 503, `${MAX_EVENT_STREAMS} pages follow this run already; close one`, {
          'retry-after': '5',
        });
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...SECURITY_HEADERS });
      response.write(`retry: 1000\n\n${eventFor(latest)}`);
      streams.add(response);
      response.on('close', () => streams.delete(response));
      return;
    }
    refusal(response, 404, 'not found');
  }

  const port = await listenOn(server, options.port, INSPECT_HOST);
  allowedHosts = new Set([`${INSPECT_HOST}:${port}`, `localhost:${port}`]);

  return {
    url: `http://${INSPECT_HOST}:${port}/?token=${tokenText}`,
    update(model) {
      latest = model;
      if (pending) return;
      pending = true;
      setImmediate(flush);
    },
    async close() {
      if (pending) flush();
      // Every stream's last message is handed to the system before the sockets are closed, so no page misses how
      // the run ended. A page that went away just now may leave its stream here with its socket gone: `end`'s
      // callback never comes for that one, its `close` does (or has), so either ends the wait.
      await Promise.all(
        [...streams].map(
          (stream) =>
            new Promise<void>((resolve) => {
              if (stream.destroyed) return resolve();
              stream.once('close', () => resolve());
              stream.end(() => resolve());
            }),
        ),
      );
      streams.clear();
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
