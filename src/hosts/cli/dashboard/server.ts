import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { errorText } from '../../../contract/error-text.js';
import { isRalphError } from '../../../contract/errors.js';
import { isSettledState, type RalphFleet } from '../../../fleet/client.js';
import type { DashboardQueries } from '../../../fleet/dashboard-queries.js';
import { FleetError } from '../../../fleet/database.js';
import type { RunEventTable } from '../../../fleet/run-events.js';
import { renderRunPage } from '../../../visualize/report-page.js';
import { alreadyEnded } from '../cancel-command.js';
import {
  givenToken,
  listenOn,
  newPageToken,
  parsedTarget,
  refusal,
  sendHtml,
  sendJson,
} from '../loopback-page.js';
import { answerOfRequest } from './answer-request.js';
import { renderDashboardPage } from './page.js';
import { createRunStreams, followRun, MAX_RUN_STREAMS } from './run-follower.js';
import { runIdIn } from './run-path.js';
import { runsListOf } from './runs-list.js';

/** The address the dashboard listens on unless told otherwise: the fleet is for the people at this machine. */
export const DASHBOARD_HOST = '127.0.0.1';

/** The header a cancel must carry: a page elsewhere cannot send it without a preflight this server never answers. */
export const CANCEL_HEADER = 'x-ralph-dashboard';

/** What the dashboard reads the fleet with. */
export interface DashboardSources {
  queries: DashboardQueries;
  events: RunEventTable;
  /** The fleet's client: a run's status, and the cancel `ralph cancel` does. */
  fleet: Pick<RalphFleet, 'status' | 'cancel' | 'answer'>;
}

/** What starts a dashboard. */
export interface DashboardServerOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  pageSize: number;
  /** The machine's statechart (visualizations/ralph.svg), for the run pages. */
  machineSvg: string;
}

/** A running dashboard. */
export interface DashboardServer {
  /** Its address with the token, `http://HOST:PORT/?token=…`: nothing of a run is served without it. */
  readonly url: string;
  /** Ends every run page's stream and stops listening. */
  close(): Promise<void>;
}

const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '::1';

/**
 * Starts `ralph dashboard`'s web server. `GET /` is the page; `/api/runs?status=&cursor=`, `/api/workers` and
 * `/api/runs/<id>` its JSON; `/runs/<id>` a run's report page, live through `/runs/<id>/events` (Server-Sent Events);
 * `POST /api/runs/<id>/cancel` cancels a run as `ralph cancel` does, `POST /api/runs/<id>/answer` answers its
 * waiting question as `ralph answer` does. Everything requires the random token of the
 * printed address (in the query, or in TOKEN_HEADER, which the page's script sends), compared in constant time:
 * without it, 403 and nothing of a run. No cookie carries it (one of 127.0.0.1 goes to every port there). On a loopback address, requests naming another host are refused (DNS rebinding). A cancel must
 * also carry CANCEL_HEADER (`cancel`; an answer: `answer`) and, when the browser says where it comes from, this very origin: a page elsewhere cannot
 * make a visitor's browser cancel a run. Rejects when it cannot listen.
 */
export async function startDashboardServer(
  sources: DashboardSources,
  options: DashboardServerOptions,
): Promise<DashboardServer> {
  const token = newPageToken();
  const streams = createRunStreams(sources.events);
  let allowedHosts: Set<string> | undefined;
  const page = renderDashboardPage(options.pageSize);
  const refuse = (
    response: ServerResponse,
    status: number,
    text: string,
    headers: Record<string, string> = {},
  ) => refusal(response, status, text, headers, 'ralph dashboard');

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else if (error instanceof FleetError) sendJson(response, 404, { error: error.message });
      else sendJson(response, 500, { error: `the fleet's database failed: ${errorText(error)}` });
    });
  });

  const runsPage = runsListOf(sources.queries, options.pageSize);

  async function runModel(runId: string) {
    return (await sources.events.exists()) ? followRun(sources.events, runId).poll() : null;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (allowedHosts !== undefined && !allowedHosts.has(request.headers.host ?? '')) {
      refuse(response, 403, `this page is served to ${options.host} only`);
      return;
    }
    const url = parsedTarget(request.url);
    if (url === undefined) {
      refuse(response, 400, 'bad request');
      return;
    }
    if (!token.matches(givenToken(request, url))) {
      refuse(response, 403, 'open the address ralph dashboard printed (it carries the token)');
      return;
    }
    const path = url.pathname;
    if (request.method === 'POST') {
      const answered = runIdIn(path, '/api/runs/', '/answer');
      if (answered !== undefined) return answer(request, response, answered);
      const cancelled = runIdIn(path, '/api/runs/', '/cancel');
      if (cancelled === undefined) return refuse(response, 404, 'not found');
      if (!fromPage(request, 'cancel'))
        return refuse(response, 403, 'a cancel comes from the dashboard page only');
      const { state } = await sources.fleet.status(cancelled);
      if (isSettledState(state)) return sendJson(response, 409, { error: alreadyEnded(cancelled, state) });
      await sources.fleet.cancel(cancelled);
      return sendJson(response, 200, { cancelled });
    }
    if (request.method !== 'GET') return refuse(response, 405, 'GET or POST only', { allow: 'GET, POST' });
    if (path === '/') return sendHtml(response, page);
    if (path === '/api/runs') return sendJson(response, 200, await runsPage(url));
    if (path === '/api/workers') {
      const ready = await sources.queries.ready();
      return sendJson(response, 200, { workers: ready ? await sources.queries.workers() : [] });
    }
    const apiRun = runIdIn(path, '/api/runs/');
    if (apiRun !== undefined) {
      const status = await sources.fleet.status(apiRun);
      return sendJson(response, 200, { status, model: await runModel(apiRun) });
    }
    const streamed = runIdIn(path, '/runs/', '/events');
    if (streamed !== undefined) {
      await sources.fleet.status(streamed);
      if (!streams.follow(streamed, response)) {
        refuse(response, 503, `${MAX_RUN_STREAMS} pages follow runs already; close one`, {
          'retry-after': '5',
        });
      }
      return;
    }
    const runPage = runIdIn(path, '/runs/');
    if (runPage !== undefined) {
      await sources.fleet.status(runPage);
      // An event stream cannot send a header: its address carries the token.
      const eventsUrl = `/runs/${encodeURIComponent(runPage)}/events?token=${token.text}`;
      return sendHtml(
        response,
        renderRunPage(await runModel(runPage), { machineSvg: options.machineSvg, live: { eventsUrl } }),
      );
    }
    refuse(response, 404, 'not found');
  }

  /** The origin this request reached, as a browser on this page names it. */
  const ownOrigin = (request: IncomingMessage) => `http://${request.headers.host ?? ''}`;

  /** Whether a POST comes from the page: it carries CANCEL_HEADER saying `what`, and no other origin. */
  const fromPage = (request: IncomingMessage, what: string) => {
    const origin = request.headers.origin;
    return request.headers[CANCEL_HEADER] === what && (origin === undefined || origin === ownOrigin(request));
  };

  /** `POST /api/runs/<id>/answer`: the answer (or give-up) of the run's waiting question, as `ralph answer` sends it. */
  async function answer(request: IncomingMessage, response: ServerResponse, runId: string): Promise<void> {
    if (!fromPage(request, 'answer'))
      return refuse(response, 403, 'an answer comes from the dashboard page only');
    await sources.fleet.status(runId);
    const given = await answerOfRequest(request);
    if ('problem' in given) return sendJson(response, 400, { error: given.problem });
    try {
      const round = await sources.fleet.answer(runId, given.answer);
      return sendJson(response, 200, { answered: runId, round });
    } catch (error) {
      // The answer itself was checked above: a refusal here is the run's state (not waiting, answered already).
      if (isRalphError(error)) return sendJson(response, 409, { error: error.message });
      throw error;
    }
  }

  const port = await listenOn(server, options.port, options.host);
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  // On loopback only these names reach it; exposed with --host, any name may, and the token alone decides.
  if (isLoopback(options.host))
    allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  return {
    url: `http://${shownHost}:${port}/?token=${token.text}`,
    async close() {
      await streams.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
