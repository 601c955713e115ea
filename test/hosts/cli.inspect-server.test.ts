import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type InspectServer,
  MAX_EVENT_STREAMS,
  startInspectServer,
} from '../../src/hosts/cli/inspect-server.js';
import { NO_BROWSER, openWatchedPage, useBrowser } from '../support/browser.js';
import { httpGet, httpOpen, type OpenResponse } from '../support/http.js';
import { startLoopbackNeighbour } from '../support/loopback-neighbour.js';
import { pngSize } from '../support/png.js';
import { completeRun, runningRun } from '../support/run-models.js';

const MACHINE_SVG = readFileSync(new URL('../fixtures/machine/ralph-like.svg', import.meta.url), 'utf8');

const servers: InspectServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(): Promise<InspectServer> {
  const server = await startInspectServer({ port: 0, machineSvg: MACHINE_SVG });
  servers.push(server);
  return server;
}

/** The address of `path` on the server, with the token its printed address carries. */
const withToken = (server: InspectServer, path: string): string =>
  new URL(`${path}${new URL(server.url).search}`, server.url).href;

describe('the inspector serves the run page on loopback only', () => {
  it('listens on 127.0.0.1 at a free port and serves the live page of the latest model', async () => {
    const server = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect((await httpGet(server.url)).body).toContain('Waiting for the run to start');

    server.update(runningRun(1));
    const page = await httpGet(server.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`data-events="/events${new URL(server.url).search}"`);
    expect(page.body).toContain('Running: no report yet.');
  });

  it('refuses a request naming another host (a DNS name rebound to 127.0.0.1), other methods and other paths', async () => {
    const server = await serve();
    expect((await httpGet(server.url, { host: 'attacker.example' })).status).toBe(403);
    expect((await httpGet(server.url, { host: `localhost:${new URL(server.url).port}` })).status).toBe(200);
    expect((await httpGet(server.url, { method: 'POST' })).status).toBe(405);
    expect((await httpGet(withToken(server, '/nothing'))).status).toBe(404);
  });

  it('answers a request target no URL parser takes with 400, and keeps serving', async () => {
    const server = await serve();
    const { port } = new URL(server.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '//[', headers: { host: `127.0.0.1:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect((await httpGet(server.url)).status).toBe(200);
  });

  it('serves nothing of the run to a request without its token (none, a wrong one, another length): 403', async () => {
    const server = await serve();
    server.update(runningRun(1));
    const bare = new URL('/', server.url).href;
    const token = new URL(server.url).searchParams.get('token') as string;
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const refusals = [
      bare,
      `${bare}?token=${wrong}`,
      `${bare}?token=${token}x`,
      `${bare}?token=`,
      new URL('/events', server.url).href,
      new URL(`/events?token=${wrong}`, server.url).href,
    ];
    for (const url of refusals) {
      const answer = await httpGet(url);
      expect(answer.status, url).toBe(403);
      expect(answer.body).toBe('ralph inspector: open the address ralph printed (it carries the token)\n');
    }
    const cookieName = `ralph-inspector-${new URL(server.url).port}`;
    expect((await httpGet(bare, { cookie: `${cookieName}=${wrong}` })).status).toBe(403);
    expect((await httpGet(bare, { cookie: `ralph-inspector-1=${token}` })).status).toBe(403);
    // A cookie is no credential at all (a browser sends one of 127.0.0.1 to every port there).
    expect((await httpGet(bare, { cookie: `${cookieName}=${token}` })).status).toBe(403);
  });

  it('sets no cookie (a browser would send it to every port of 127.0.0.1): the printed address itself opens the page again', async () => {
    const server = await serve();
    const first = await httpGet(server.url);
    expect(first.headers['set-cookie']).toBeUndefined();
    const again = await httpGet(server.url);
    expect(again.status).toBe(200);
    expect(again.body).toContain('Waiting for the run to start');
  });

  it(`lets ${MAX_EVENT_STREAMS} pages follow the run at once; one more gets 503 until one closes`, async () => {
    const server = await serve();
    server.update(runningRun(1));
    const events = withToken(server, '/events');
    const open: OpenResponse[] = [];
    try {
      for (let i = 0; i < MAX_EVENT_STREAMS; i += 1) open.push(await httpOpen(events));
      expect(open.map((stream) => stream.status)).toEqual(Array(MAX_EVENT_STREAMS).fill(200));
      const refused = await httpGet(events);
      expect(refused.status).toBe(503);
      expect(refused.body).toBe(
        `ralph inspector: ${MAX_EVENT_STREAMS} pages follow this run already; close one\n`,
      );

      open.shift()?.close();
      let next: OpenResponse | undefined;
      // The server counts the stream gone once its socket's close reaches it: retried on each 503, not timed.
      while (next === undefined || next.status === 503) next = await httpOpen(events);
      open.push(next);
      expect(next.status).toBe(200);
      expect(next.first).toContain('event: run');
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('stops listening once closed', async () => {
    const server = await serve();
    await server.close();
    await expect(httpGet(server.url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe.skipIf(NO_BROWSER !== undefined)(
  `the live page in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  // Chromium on a machine busy with other work can take most of the default 20 s for one page: waits are on events.
  { timeout: 60_000 },
  () => {
    const browserOf = useBrowser();

    it('shows round 2 appear while the page is open, without a reload, keeps what a person closed, and ends with the run', async () => {
      const server = await serve();
      server.update(runningRun(0));
      const events = withToken(server, '/events');
      const { page, faults } = await openWatchedPage(
        browserOf(),
        (url) => url === server.url || url === events,
      );
      let navigations = 0;
      page.on('framenavigated', () => {
        navigations += 1;
      });
      await page.goto(server.url);
      await page.waitForSelector('#live-note:text("Live: following the run.")');
      expect(await page.locator('#round-1 .badge').textContent()).toBe('running');
      expect(await page.locator('#state-awaitingReport').getAttribute('class')).toMatch(/\bcurrent\b/);
      await page.evaluate('window.__samePage = true');

      // Round 1 reports and round 2 starts: a person closed round 1 meanwhile, and it stays closed.
      await page.locator('#round-1 > summary').click();
      server.update(runningRun(1));
      await page.waitForSelector('#round-2');
      expect(await page.locator('#round-2 .badge').textContent()).toBe('running');
      expect(await page.locator('#round-1 .badge').textContent()).toBe('continue');
      expect(await page.locator('#round-1').getAttribute('open')).toBeNull();
      expect(await page.evaluate('window.__samePage')).toBe(true);

      // The run ends: the page shows how, stops listening, and the server can stop without the page complaining.
      server.update(completeRun(2));
      await page.waitForSelector('#run-status:text("Complete")');
      await page.waitForSelector('#live-note:text("Live: the run has ended.")');
      expect(await page.locator('#state-complete').getAttribute('class')).toMatch(/\brun-final\b/);
      expect(await page.title()).toContain(': complete');
      await server.close();

      const shot = await page.screenshot({ fullPage: true });
      expect(pngSize(shot).width).toBeGreaterThan(800);
      expect(shot.length).toBeGreaterThan(50_000);
      expect(await page.evaluate('window.__samePage')).toBe(true);
      expect(navigations).toBe(1);
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('shows another browser without the token a 403 and nothing of the run; the page given the token reloads from its address, and its bare address stays refused', async () => {
      const server = await serve();
      server.update(runningRun(1));
      const bare = new URL('/', server.url).href;
      const events = withToken(server, '/events');

      const stranger = await browserOf().newPage();
      const refused = await stranger.goto(bare);
      expect(refused?.status()).toBe(403);
      expect(await stranger.content()).not.toContain('Running');
      await stranger.close();

      const allowed = (url: string) => url === server.url || url === bare || url === events;
      const { page, faults } = await openWatchedPage(browserOf(), allowed);
      await page.goto(server.url);
      await page.waitForSelector('#live-note:text("Live: following the run.")');
      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(200);
      await page.waitForSelector('#live-note:text("Live: following the run.")');
      expect(await page.locator('#run-status').textContent()).toBe('Running');
      expect(faults).toEqual({ errors: [], requests: [] });
      // No cookie was left behind to open it without the token.
      expect((await page.goto(bare))?.status()).toBe(403);
      await page.close();
    });

    it('gives a server of someone else on another 127.0.0.1 port nothing of the token, after the page was used', async () => {
      const server = await serve();
      server.update(runningRun(0));
      const neighbour = await startLoopbackNeighbour();
      try {
        const token = new URL(server.url).searchParams.get('token') as string;
        const events = withToken(server, '/events');
        const allowed = (url: string) =>
          url === server.url || url === events || url.startsWith(neighbour.url);
        const { page, faults } = await openWatchedPage(browserOf(), allowed);
        await page.goto(server.url);
        await page.waitForSelector('#live-note:text("Live: following the run.")');
        server.update(runningRun(1));
        await page.waitForSelector('#round-2');

        await page.goto(neighbour.url);
        await neighbour.probed;
        expect(neighbour.requests.length).toBeGreaterThanOrEqual(2);
        for (const request of neighbour.requests) expect(request).not.toContain(token);
        expect(faults).toEqual({ errors: [], requests: [] });
        await page.close();
      } finally {
        await neighbour.close();
      }
    });

    it('sends a page opened before the run began the run once it starts', async () => {
      const server = await serve();
      const events = withToken(server, '/events');
      const { page, faults } = await openWatchedPage(
        browserOf(),
        (url) => url === server.url || url === events,
      );
      await page.goto(server.url);
      await page.waitForSelector('#live-note:text("Live: following the run.")');
      expect(await page.locator('#run-status').textContent()).toBe('Waiting');
      server.update(runningRun(0));
      await page.waitForSelector('#round-1');
      expect(await page.locator('#run-status').textContent()).toBe('Running');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });
  },
);
