import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, PLAN_AGENT_COMMAND, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { NO_BROWSER, openWatchedPage, useBrowser } from '../support/browser.js';
import { cleanEnv } from '../support/processes.js';

// `ralph run --ask --inspect` through the CLI, in Chromium: the live page shows the blocked round's question with an
// answer box, and the answer typed there is what round 2 starts with. Needs `--ask` (h-cli's run.ts) with the
// inspector's answers among the run's sources.

const INSPECTOR_LINE = /^ralph: inspector at (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})$/m;
const BLOCKER = 'the API key is missing';
const ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** POSTs an answer to the page's server with these headers; resolves with the status. */
function postAnswer(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/answer', url), { method: 'POST', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ round: 1, answer: { kind: 'answer', text: 'sneaked in' } }));
  });
}

describe.skipIf(NO_BROWSER !== undefined)(
  `ralph run --ask --inspect in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  { timeout: 60_000 },
  () => {
    const browserOf = useBrowser();

    it('waits on the question; the page shows it, refuses an answer without the token, and sends the one typed', async () => {
      const ws = await makeWorkspace(['blocked', 'complete']);
      cleanups.push(ws.cleanup);
      const home = await mkdtemp(join(tmpdir(), 'ralph-home-'));
      cleanups.push(() => rm(home, { recursive: true, force: true }));
      const run = spawnRalph(
        [
          'run',
          'Migrate the orders table',
          '--agent-command',
          PLAN_AGENT_COMMAND,
          '--cwd',
          ws.dir,
          '--max-rounds',
          '3',
          '--ask',
          '--inspect',
        ],
        { env: cleanEnv({ HOME: home }) },
      );
      cleanups.push(async () => {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      });
      const url = await waitUntil(() => INSPECTOR_LINE.exec(run.stderrSoFar())?.[1], 'the inspector address');
      const events = new URL(`/events${new URL(url).search}`, url).href;
      const answer = new URL('/answer', url).href;
      const { page, faults } = await openWatchedPage(
        browserOf(),
        (requested) => requested === url || requested === events || requested === answer,
      );
      await page.goto(url);
      await page.waitForSelector('#answer-box:not([hidden])');
      expect(await page.locator('#answer-question').textContent()).toBe(BLOCKER);
      expect(await page.locator('#run-status').textContent()).toBe('Waiting for an answer');

      // Without the token nothing is delivered: the run still waits.
      expect(await postAnswer(url, { 'content-type': 'application/json' })).toBe(403);
      expect(await page.locator('#answer-box').isVisible()).toBe(true);
      expect(run.child.exitCode).toBeNull();

      await page.locator('#answer-text').fill('Use the staging key <b>now</b>');
      await page.locator('#answer-send').click();
      await page.waitForSelector('#run-status:text("Complete")');
      expect(await page.locator('#answer-1').textContent()).toBe('Use the staging key <b>now</b>');

      const out = await run.finished;
      expect(out.code).toBe(0);
      expect(ws.promptOf(2)).toContain(`The previous round was blocked: ${BLOCKER}`);
      expect(ws.promptOf(2)).toContain(`${ANSWER_LABEL} Use the staging key <b>now</b>`);
      expect(out.stderr).toContain('live page');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });
  },
);
