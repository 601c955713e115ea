import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { launchBrowser, NO_BROWSER, openWatchedPage, type PageFaults } from '../support/browser.js';
import { startLoopbackNeighbour } from '../support/loopback-neighbour.js';
import {
  AGENT_COMMAND,
  isRunning,
  ralph,
  startDashboard as startFleetDashboard,
  startWorker,
  stopWorker,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
let browser: Browser | undefined;

beforeAll(async () => {
  if (NO_BROWSER === undefined) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Starts `ralph dashboard` on the fleet and resolves with its printed address (with the token) and its process. */
const startDashboard = (url: string, ...extra: string[]) => startFleetDashboard(scene, url, ...extra);

/** Opens a page that lets requests go to the dashboard's own origin only, recording any other (and aborting it). */
async function openDashboardPage(address: URL, path = '/'): Promise<{ page: Page; faults: PageFaults }> {
  const opened = await openWatchedPage(browser as Browser, (target) =>
    target.startsWith(`${address.origin}/`),
  );
  const target = new URL(path, address);
  target.searchParams.set('token', address.searchParams.get('token') ?? '');
  await opened.page.goto(target.toString());
  return opened;
}

/** The text of a run's row cell, by its column. */
const cellOf = (page: Page, runId: string, column: number) =>
  page.locator(`tr[data-run="${runId}"] td:nth-child(${column})`).textContent();

const XSS_OBJECTIVE =
  '<img src=x onerror="document.title=\'pwned\'"> Count to three <script>window.pwned=1</script>';

describe('ralph dashboard', () => {
  it.skipIf(NO_BROWSER !== undefined)(
    'shows the runs as they go and end, their reports and the workers; cancels from the page; serves nothing without the token',
    async () => {
      const url = scene.databaseFor('dashboard');
      const env = { FLEET_AGENT_ROUNDS: '3', FLEET_AGENT_HOLD_ROUND: '2', FLEET_AGENT_COST_USD: '0.25' };
      const worker = await startWorker(url, 'dash-worker', { env, extra: ['--concurrency', '2'] });
      scene.processes.push(worker);
      const fleet = await createRalphFleet({ databaseUrl: url });
      scene.fleets.push(fleet);
      const wsA = await scene.workspace();
      const wsB = await scene.workspace();
      const agent = { agentCommand: AGENT_COMMAND };
      const runA = await fleet.submit({ objective: XSS_OBJECTIVE, agent, cwd: wsA.dir });
      const runB = await fleet.submit({
        objective: 'Count to three, then be cancelled',
        agent,
        cwd: wsB.dir,
      });

      const { address, dashboard } = await startDashboard(url);
      expect(address.hostname).toBe('127.0.0.1');
      const { page, faults } = await openDashboardPage(address);

      // Both appear and progress: round 1 recorded, round 2's agent holding.
      await page.locator(`tr[data-run="${runA}"][data-state="running"]`).waitFor();
      await page.locator(`tr[data-run="${runB}"][data-state="running"]`).waitFor();
      await waitFor(async () => (await cellOf(page, runA, 5)) === '1', 'run A to show its first round');
      await waitFor(() => wsB.holders(2).length === 1, "run B's second agent to hold");
      expect(await cellOf(page, runA, 4)).toBe('dash-worker');
      expect(await cellOf(page, runA, 6)).toContain('$0.25');
      // The objective is shown as the text it is: no element of it made it into the page.
      expect(await cellOf(page, runA, 2)).toBe(XSS_OBJECTIVE);
      expect(await page.locator('#runs img').count()).toBe(0);
      expect(await page.evaluate('typeof globalThis.pwned')).toBe('undefined');
      // The workers: the lease, the runs it holds.
      const workerRow = page.locator('tr[data-worker="dash-worker"]');
      await waitFor(
        async () => (await workerRow.locator('td:nth-child(4)').textContent()) === '2',
        'runs held',
      );
      expect(await workerRow.locator('td:nth-child(2)').textContent()).toMatch(/^live until /);

      // B's own page, live: its report so far, and later its ending.
      const { page: runPage, faults: runFaults } = await openDashboardPage(address, `/runs/${runB}`);
      await runPage.getByText('round 1', { exact: true }).first().waitFor({ state: 'attached' });

      // Cancel from the dashboard: the confirmation is asked for, and the agent stops.
      const holder = wsB.holders(2)[0] as number;
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await page.locator(`tr[data-run="${runB}"] button.cancel`).click();
      await page.locator(`tr[data-run="${runB}"][data-state="cancelled"]`).waitFor();
      expect(asked).toContain(runB);
      await waitFor(() => !isRunning(holder), "run B's agent to be stopped");
      const statusB = await ralph(['status', runB, '--json', '--database-url', url]);
      expect(JSON.parse(statusB.stdout).state).toBe('cancelled');
      await waitFor(
        async () => (await runPage.title()).endsWith(': cancelled'),
        "B's page to show the cancel",
      );

      // A goes on and ends; its page is its report.
      await wsA.release();
      await page.locator(`tr[data-run="${runA}"][data-state="complete"]`).waitFor();
      expect(await cellOf(page, runA, 5)).toBe('3');
      expect(await cellOf(page, runA, 6)).toContain('$0.75');
      // An ended run has a duration, also the one cancelled.
      expect(await cellOf(page, runA, 8)).toMatch(/^\d+s$/);
      expect(await cellOf(page, runB, 8)).toMatch(/^\d+s$/);
      const { page: reportPage, faults: reportFaults } = await openDashboardPage(address, `/runs/${runA}`);
      expect(await reportPage.title()).toBe(`ralph run ${runA}: complete`);
      await reportPage.getByText('round 3', { exact: true }).first().waitFor({ state: 'attached' });
      expect(await reportPage.locator('main img').count()).toBe(0);

      // Filter by status.
      await page.selectOption('#status', 'complete');
      await waitFor(async () => (await page.locator('tr[data-run]').count()) === 1, 'the filter to apply');
      expect(await page.locator(`tr[data-run="${runA}"]`).count()).toBe(1);

      // Every request of every page went to the dashboard itself; nothing failed in them.
      for (const seen of [faults, runFaults, reportFaults]) {
        expect(seen.requests).toEqual([]);
        expect(seen.errors).toEqual([]);
      }

      // Without the token, or with a wrong one: nothing of a run, for the page and for every API.
      const token = address.searchParams.get('token') as string;
      for (const path of [
        '/',
        '/api/runs',
        '/api/workers',
        `/api/runs/${runA}`,
        `/runs/${runA}`,
        `/runs/${runA}/events`,
      ]) {
        for (const query of ['', `?token=${token.slice(1)}x`]) {
          const response = await fetch(`${address.origin}${path}${query}`);
          expect(response.status).toBe(403);
          const body = await response.text();
          expect(body).not.toContain(runA);
          expect(body).not.toContain('Count to three');
        }
      }
      // A browser that never had the address (no cookie) gets no run either.
      const bare = await (browser as Browser).newPage();
      for (const path of [`/runs/${runA}`, '/', `/?token=${token.slice(1)}x`]) {
        await bare.goto(`${address.origin}${path}`);
        expect(await bare.content()).not.toContain(runA);
      }
      await bare.close();
      // A cancel needs the token, the dashboard's header and, when sent, its own origin.
      const cancelUrl = `${address.origin}/api/runs/${runA}/cancel?token=${token}`;
      expect((await fetch(cancelUrl, { method: 'POST' })).status).toBe(403);
      const foreign = { 'x-ralph-dashboard': 'cancel', origin: 'http://evil.example' };
      expect((await fetch(cancelUrl, { method: 'POST', headers: foreign })).status).toBe(403);
      expect(
        (await fetch(`${address.origin}/api/runs/${runA}/cancel`, { method: 'POST', headers: foreign }))
          .status,
      ).toBe(403);
      // A run that has ended is not cancelled again, and the page is not told it was.
      const again = await fetch(`${address.origin}/api/runs/${runB}/cancel?token=${token}`, {
        method: 'POST',
        headers: { 'x-ralph-dashboard': 'cancel' },
      });
      expect(again.status).toBe(409);
      expect(await again.json()).toEqual({
        error: `ralph: ${runB} has already ended (cancelled): nothing to cancel`,
      });

      // Ctrl-C stops it cleanly: exit 0, its connections to the database closed.
      dashboard.child.kill('SIGINT');
      expect((await dashboard.exited).code).toBe(0);
    },
    180_000,
  );

  it('shows a run its worker died in as one run: the worker that runs it again records it again from its start', async () => {
    const url = scene.databaseFor('dashboard_restart');
    const ws = await scene.workspace();
    // Its own TMPDIR: the restarted worker sweeps the dead one's round folders there, not another test's.
    const env = { FLEET_AGENT_ROUNDS: '3', FLEET_AGENT_HOLD_ROUND: '2', TMPDIR: ws.dir };
    const first = await startWorker(url, 'dash-restart', { env });
    scene.processes.push(first);
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const runId = await fleet.submit({
      objective: 'Count to three',
      agent: { agentCommand: AGENT_COMMAND },
      cwd: ws.dir,
    });
    await waitFor(() => ws.holders(2).length === 1, "round 2's agent");
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startWorker(url, 'dash-restart', { env });
    scene.processes.push(second);
    await waitFor(() => ws.startsOf(2).length === 2, 'round 2 to start again');
    await ws.release();
    expect((await fleet.wait(runId, { pollMs: 200 })).state).toBe('complete');
    await stopWorker(second);

    const { address, dashboard } = await startDashboard(url);
    const token = address.searchParams.get('token') as string;
    const shown = (await (await fetch(`${address.origin}/api/runs/${runId}?token=${token}`)).json()) as {
      status: { state: string; roundsDone: number };
      model: {
        runId: string;
        rounds: { round: number; outcome: string }[];
        ending: { finalState: string } | null;
      };
    };
    expect(shown.status).toMatchObject({ state: 'complete', roundsDone: 3 });
    expect(shown.model.runId).toBe(runId);
    expect(shown.model.rounds.map((round) => [round.round, round.outcome])).toEqual([
      [1, 'continue'],
      [2, 'continue'],
      [3, 'complete'],
    ]);
    expect(shown.model.ending?.finalState).toBe('complete');
    // One recording: numbered 1…n without a gap, one header, nothing left of the dead worker's execution.
    const pool = createPgPool({ connectionString: url, max: 1 });
    try {
      const { rows } = await pool.query<{ seq: number; line: string }>(
        'SELECT seq, line FROM ralph_fleet_run_events WHERE run_id = $1 ORDER BY seq',
        [runId],
      );
      expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
      const headers = rows.filter((row) => row.line.includes('"@ralph.recording"'));
      expect(headers).toHaveLength(1);
      // The header is the second worker's: its execution is the one recorded, from its start.
      expect(Date.parse(JSON.parse(headers[0]?.line as string).startedAt)).toBeGreaterThanOrEqual(killedAt);
    } finally {
      await pool.end();
    }
    dashboard.child.kill('SIGINT');
    expect((await dashboard.exited).code).toBe(0);
  }, 120_000);

  it.skipIf(NO_BROWSER !== undefined)(
    'gives a server of someone else on another 127.0.0.1 port nothing of the token; the page still follows, links to and cancels runs',
    async () => {
      const url = scene.databaseFor('dashboard_neighbour');
      const fleet = await createRalphFleet({ databaseUrl: url });
      scene.fleets.push(fleet);
      const ws = await scene.workspace();
      const agent = { agentCommand: AGENT_COMMAND };
      const first = await fleet.submit({ objective: 'Wait in the queue', agent, cwd: ws.dir });
      const { address, dashboard } = await startDashboard(url);
      const token = address.searchParams.get('token') as string;
      const neighbour = await startLoopbackNeighbour();
      try {
        const { page, faults } = await openWatchedPage(
          browser as Browser,
          (target) => target.startsWith(`${address.origin}/`) || target.startsWith(neighbour.url),
        );
        await page.goto(address.toString());
        await page.locator(`tr[data-run="${first}"][data-state="queued"]`).waitFor();
        // A run submitted while the page is open shows without a reload: the page's polls carry the token.
        const second = await fleet.submit({ objective: 'Be cancelled from the page', agent, cwd: ws.dir });
        await page.locator(`tr[data-run="${second}"][data-state="queued"]`).waitFor();

        // The run's link opens its live page (the token in the link, and in its event stream's address).
        await page.locator(`tr[data-run="${first}"] a`).click();
        await page.locator('#live-note:text("Live: following the run.")').waitFor();
        expect(new URL(page.url()).pathname).toBe(`/runs/${first}`);
        await page.goBack();

        // Cancel from the page: the token goes in a header the page's script sends.
        page.once('dialog', (dialog) => void dialog.accept());
        await page.locator(`tr[data-run="${second}"] button.cancel`).click();
        await page.locator(`tr[data-run="${second}"][data-state="cancelled"]`).waitFor();
        expect((await fleet.status(second)).state).toBe('cancelled');
        expect(faults).toEqual({ errors: [], requests: [] });

        // The same browser then visits another server on 127.0.0.1: nothing it sends there carries the token.
        await page.goto(neighbour.url);
        await neighbour.probed;
        expect(neighbour.requests.length).toBeGreaterThanOrEqual(2);
        for (const request of neighbour.requests) expect(request).not.toContain(token);
        await page.close();
      } finally {
        await neighbour.close();
      }
      dashboard.child.kill('SIGINT');
      expect((await dashboard.exited).code).toBe(0);
    },
    120_000,
  );

  it.skipIf(NO_BROWSER !== undefined)(
    'pages through many runs, newest first, without loading them all',
    async () => {
      const url = scene.databaseFor('dashboard_pages');
      const fleet = await createRalphFleet({ databaseUrl: url });
      scene.fleets.push(fleet);
      const ws = await scene.workspace();
      const submitted: string[] = [];
      for (let n = 0; n < 60; n += 1) {
        submitted.push(
          await fleet.submit({ objective: `Run ${n}`, agent: { agentCommand: AGENT_COMMAND }, cwd: ws.dir }),
        );
      }
      // Newest first; runs submitted within one millisecond by their id, as the dashboard orders them.
      const created = await Promise.all(
        submitted.map(async (id) => ({ id, at: (await fleet.status(id)).createdAt })),
      );
      const newestFirst = created
        .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .map((run) => run.id);
      const { address, dashboard } = await startDashboard(url, '--page-size', '25');
      const { page, faults } = await openDashboardPage(address);
      const shown = () =>
        page.locator('tr[data-run]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run')));
      const pageShowing = async (first: string | undefined) =>
        waitFor(async () => {
          const ids = await shown();
          return ids[0] === first ? ids : undefined;
        }, `the page that starts with ${first}`);

      expect(await pageShowing(newestFirst[0])).toEqual(newestFirst.slice(0, 25));
      await page.click('#older');
      expect(await pageShowing(newestFirst[25])).toEqual(newestFirst.slice(25, 50));
      await page.click('#older');
      expect(await pageShowing(newestFirst[50])).toEqual(newestFirst.slice(50, 60));
      expect(await page.locator('#older').isDisabled()).toBe(true);
      await page.click('#newer');
      expect(await pageShowing(newestFirst[25])).toEqual(newestFirst.slice(25, 50));
      expect(await page.locator('#counts').textContent()).toContain('queued 60');
      expect(faults.requests).toEqual([]);
      expect(faults.errors).toEqual([]);

      // The API itself never answers more than a page.
      const token = address.searchParams.get('token') as string;
      const api = (await (await fetch(`${address.origin}/api/runs?token=${token}&status=queued`)).json()) as {
        runs: unknown[];
        next: unknown;
      };
      expect(api.runs).toHaveLength(25);
      expect(typeof api.next).toBe('string');
      dashboard.child.kill('SIGINT');
      expect((await dashboard.exited).code).toBe(0);

      // --host exposes it on that address, with a warning; the token still decides.
      const exposed = await startDashboard(url, '--host', '127.0.0.2');
      expect(exposed.address.host).toMatch(/^127\.0\.0\.2:\d+$/);
      expect(exposed.dashboard.stderr()).toContain(
        'ralph: warning: the dashboard listens on 127.0.0.2, beyond',
      );
      const exposedToken = exposed.address.searchParams.get('token') as string;
      expect((await fetch(`${exposed.address.origin}/api/runs`)).status).toBe(403);
      const exposedPage = await fetch(`${exposed.address.origin}/api/runs?token=${exposedToken}`);
      expect(((await exposedPage.json()) as { runs: unknown[] }).runs).toHaveLength(50); // the default page size
      exposed.dashboard.child.kill('SIGINT');
      expect((await exposed.dashboard.exited).code).toBe(0);

      // Bad options are refused (exit 2) and serve nothing.
      const badPort = await ralph(['dashboard', '--database-url', url, '--port', '70000']);
      expect(badPort.code).toBe(2);
      expect(badPort.stderr).toContain(
        'ralph dashboard --port takes a whole number from 0 to 65535, not "70000"',
      );
      const badHost = await ralph(['dashboard', '--database-url', url, '--host', '203.0.113.9']);
      expect(badHost.code).toBe(2);
      expect(badHost.stderr).toContain('ralph dashboard cannot listen on 203.0.113.9:0: EADDRNOTAVAIL');
      expect(badHost.stderr).not.toContain('dashboard at');
    },
    120_000,
  );
});
