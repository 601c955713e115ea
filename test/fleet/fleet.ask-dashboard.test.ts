import { readdirSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import {
  killedAfterTest,
  ralph,
  startDashboard,
  startWorker,
  submitArgs,
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

describe('the dashboard of a fleet run that asks', () => {
  it.skipIf(NO_BROWSER !== undefined)(
    'shows the question as text and answers it from its box, in Chromium',
    async () => {
      const url = scene.databaseFor('ask_dashboard_page');
      const ws = await scene.workspace();
      const blocker = 'Which <img src=x onerror="document.title=1"> schema?';
      const env = {
        FLEET_AGENT_BLOCK_ROUND: '1',
        FLEET_AGENT_ROUNDS: '2',
        FLEET_AGENT_BLOCKER: blocker,
        TMPDIR: ws.dir,
      };
      killedAfterTest(scene, await startWorker(url, 'ask-page', { env }));
      const submitted = await ralph(submitArgs(url, ws.dir, 'Migrate the schema', '--ask'));
      const runId = submitted.stdout.trim();
      const { address } = await startDashboard(scene, url);
      const { page, faults } = await openWatchedPage(browser as Browser, (target) =>
        target.startsWith(`${address.origin}/`),
      );
      await page.goto(address.toString());
      const asked = page.locator(`tr[data-run="${runId}"] .question .asked`);
      await asked.waitFor({ timeout: 60_000 });
      expect(await asked.textContent()).toBe(`Round 1 asks: ${blocker}`);
      expect(await page.locator('tr img').count()).toBe(0);

      // Typed slowly across the page's redraws (every second): what is typed stays.
      const box = page.locator(`tr[data-run="${runId}"] .question textarea`);
      await box.pressSequentially('Use the <b>public</b> schema', { delay: 60 });
      await page.locator(`tr[data-run="${runId}"] .question button.answer`).click();
      await page.locator('#note', { hasText: `Answered round 1 of ${runId}` }).waitFor();

      const waited = await ralph(['wait', runId, '--json', '--database-url', url]);
      expect(JSON.parse(waited.stdout).result).toMatchObject({ status: 'complete', rounds: 2 });
      const read = readdirSync(ws.dir).filter((name) => name.startsWith('answer-2.'));
      expect(read.map((name) => readFileSync(`${ws.dir}/${name}`, 'utf8'))).toEqual([
        expect.stringContaining(': Use the <b>public</b> schema'),
      ]);
      await waitFor(
        async () => (await page.locator(`tr[data-run="${runId}"] .question`).count()) === 0,
        'the question to leave the page',
      );
      expect(await page.title()).not.toBe('1');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    },
    120_000,
  );
});
