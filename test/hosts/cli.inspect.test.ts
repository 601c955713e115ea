import { existsSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { quote } from 'shell-quote';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OBJECTIVE_EMPTY } from '../../src/contract/messages.js';
import {
  inspectCannotListen,
  inspectorAt,
  inspectorStays,
  inspectPortInvalid,
} from '../../src/hosts/cli/inspect-run.js';
import {
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  ralph,
  spawnRalph,
  type Workspace,
  waitUntil,
} from '../fixtures/cli-agents/harness.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { httpGet } from '../support/http.js';

/** The fake agent whose rounds wait for the test to open their gate (see gated-agent.mjs). */
const GATED_AGENT_COMMAND = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/cli-agents/gated-agent.mjs', import.meta.url)),
]);

const INSPECTOR_LINE = /^ralph: inspector at (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})$/m;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function workspace(plan: Parameters<typeof makeWorkspace>[0] = ['complete']): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  cleanups.push(made.cleanup);
  return made;
}

describe('ralph run --inspect: its options', () => {
  it('refuses a port that is no port before any agent starts, saying how to write it', async () => {
    const ws = await workspace();
    const out = await ralph([
      'run',
      '--inspect',
      'Tick every box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(inspectPortInvalid('Tick every box'));
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('refuses a port something else listens on, before any agent starts', async () => {
    const ws = await workspace();
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const port = (taken.address() as { port: number }).port;

    const out = await ralph([
      'run',
      'Tick',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      `--inspect=${port}`,
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(inspectCannotListen(port, 'EADDRINUSE'));
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('with --inspect-keep, keeps the page up after the run until Ctrl-C, then exits with the run’s code', async () => {
    const ws = await workspace(['blocked']);
    const run = spawnRalph([
      'run',
      'Tick',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--inspect-keep',
      '--json',
    ]);
    const url = await waitUntil(() => INSPECTOR_LINE.exec(run.stderrSoFar())?.[1], 'the inspector address');
    await waitUntil(() => run.stderrSoFar().includes(inspectorStays(url)), 'the run to end');

    const page = await httpGet(url);
    expect(page.status).toBe(200);
    expect(page.body).toContain('>Blocked</span>');
    expect(page.body).toContain('the API key is missing');

    run.child.kill('SIGINT');
    const out = await run.finished;
    expect(out.code).toBe(3);
    expect(JSON.parse(out.stdout).result.status).toBe('blocked');
    expect(out.stderr.split('\n')[0]).toBe(inspectorAt(url));
    await expect(httpGet(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
  it('shows a call the tool refused as refused, with its message', async () => {
    const ws = await workspace();
    const run = spawnRalph([
      'run',
      '   ',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--inspect-keep',
    ]);
    const url = await waitUntil(() => INSPECTOR_LINE.exec(run.stderrSoFar())?.[1], 'the inspector address');
    await waitUntil(() => run.stderrSoFar().includes(inspectorStays(url)), 'the run to end');

    const page = await httpGet(url);
    expect(page.body).toContain('>Refused</span>');
    expect(page.body).toContain(OBJECTIVE_EMPTY);
    run.child.kill('SIGINT');
    expect((await run.finished).code).toBe(2);
    expect(ws.noAgentStarted()).toBe(true);
  });
});

describe.skipIf(NO_BROWSER !== undefined)(
  `ralph run --inspect in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  // Chromium on a machine busy with other work can take most of the default 20 s for one page: waits are on events.
  { timeout: 60_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('serves a page that shows round 2 appear while a slow agent runs, and stops when the run ends', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ralph-inspect-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const gate = (round: number) => join(dir, 'ralph-gates', `round-${round}`);
      // Written aside and renamed into place, so the agent never reads a gate half written.
      const openGate = async (round: number, status: string) => {
        await writeFile(`${gate(round)}.tmp`, status);
        await rename(`${gate(round)}.tmp`, `${gate(round)}.go`);
      };
      const run = spawnRalph([
        'run',
        'Open every gate',
        '--agent-command',
        GATED_AGENT_COMMAND,
        '--cwd',
        dir,
        '--max-rounds',
        '3',
        '--inspect',
      ]);
      cleanups.push(async () => {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
      });
      const url = await waitUntil(() => INSPECTOR_LINE.exec(run.stderrSoFar())?.[1], 'the inspector address');
      await waitUntil(() => existsSync(`${gate(1)}.started`), 'round 1 to start');

      const events = new URL(`/events${new URL(url).search}`, url).href;
      const { page, faults } = await openWatchedPage(
        browser,
        (requested) => requested === url || requested === events,
      );
      await page.goto(url);
      await page.waitForSelector('#round-1 .badge:text("running")');
      expect(await page.locator('#run-status').textContent()).toBe('Running');
      expect(await page.locator('.fact .objective').textContent()).toBe('Open every gate');
      await page.evaluate('window.__samePage = true');

      await openGate(1, 'continue');
      await page.waitForSelector('#round-2 .badge:text("running")');
      expect(await page.locator('#round-1').textContent()).toContain('gated round 1 reported continue');
      expect(await page.locator('#round-1 .child code').textContent()).toMatch(/-r1-pid\d+$/);

      await openGate(2, 'complete');
      await page.waitForSelector('#run-status:text("Complete")');
      expect(await page.locator('#round-2').textContent()).toContain('gated round 2 reported complete');
      expect(await page.evaluate('window.__samePage')).toBe(true);

      const out = await run.finished;
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(
        /^Ralph complete: the worker reported the objective complete after 2 rounds\./,
      );
      await expect(httpGet(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });
  },
);
