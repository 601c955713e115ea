import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunModel } from '../../src/inspect/run-model.js';
import { buildRunModel } from '../../src/inspect/run-model-builder.js';
import { renderRunPage } from '../../src/visualize/report-page.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { pngSize } from '../support/png.js';
import { budgetLimitedRun, demoRun, failedRun, hostileRun } from '../support/run-models.js';
import { nestedSvg, recordNestedRun } from './nested-recording.js';

const MACHINE_SVG = readFileSync(new URL('../fixtures/machine/ralph-like.svg', import.meta.url), 'utf8');

describe.skipIf(NO_BROWSER !== undefined)(
  `the run report in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  // Chromium on a machine busy with other work can take most of the default 20 s for one page: waits are on events.
  { timeout: 60_000 },
  () => {
    let browser: Browser;
    let dir: string;

    beforeAll(async () => {
      browser = await launchBrowser();
      dir = await mkdtemp(join(tmpdir(), 'ralph-report-page-'));
    });
    afterAll(async () => {
      await browser?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    /** Writes the report of `model` to a file and opens it as a person would, watching for errors and requests. */
    async function open(name: string, model: RunModel, machineSvg = MACHINE_SVG) {
      const file = join(dir, `${name}.html`);
      await writeFile(file, renderRunPage(model, { machineSvg }));
      const url = pathToFileURL(file).href;
      const watched = await openWatchedPage(browser, (requested) => requested === url);
      await watched.page.goto(url);
      return watched;
    }

    it('shows every round of a 3-round demo run with its summary, marks the path and the final state, and loads nothing', async () => {
      const model = demoRun();
      const { page, faults } = await open('demo', model);

      for (const round of model.rounds) {
        const text = await page.locator(`#round-${round.round}`).textContent();
        expect(text).toContain(round.report!.summary);
      }
      expect(await page.locator('#run-status').textContent()).toBe('Complete');
      const classes = (selector: string) => page.locator(selector).getAttribute('class');
      expect(await classes('#state-complete')).toMatch(/\brun-final\b.*\btone-good\b/);
      for (const state of ['validating', 'round', 'awaitingReport', 'reviewingReport', 'complete']) {
        expect(await classes(`#state-${state}`)).toMatch(/\bvisited\b/);
      }
      expect(await classes('#state-blocked')).not.toMatch(/\bvisited\b/);
      expect(await classes('#edge-reviewingReport-5')).toMatch(/\btaken\b/); // back to round: there were 3 rounds
      expect(await classes('#edge-reviewingReport-3')).not.toMatch(/\btaken\b/); // never blocked

      const shot = await page.screenshot({ fullPage: true });
      const { width, height } = pngSize(shot);
      expect(width).toBeGreaterThan(800);
      expect(height).toBeGreaterThan(800);
      expect(shot.length).toBeGreaterThan(50_000);
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('shows the markup a run carries as text and runs none of it', async () => {
      const { page, faults } = await open('hostile', hostileRun());
      expect(await page.locator('#round-1 .body .summary').textContent()).toBe(
        '<script>window.__pwned=1</script>',
      );
      await page.locator('#round-1 .body li').first().hover();
      expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('reads a 256-round run: a line a round, the last one open, any other one opened from the strip', async () => {
      const { page, faults } = await open('budget', budgetLimitedRun(256));
      expect(await page.locator('details.round').count()).toBe(256);
      expect(await page.locator('details.round[open]').count()).toBe(1);
      expect(await page.locator('#round-256').getAttribute('open')).toBe('');
      expect(await page.locator('#state-budgetLimited').getAttribute('class')).toMatch(
        /\brun-final\b.*\btone-warn\b/,
      );

      await page.locator('.strip a[href="#round-100"]').click();
      await page.waitForFunction("document.getElementById('round-100').open");
      expect(await page.locator('#round-100 .body').textContent()).toContain('Round 100: did task 100');

      await page.getByRole('button', { name: 'Expand all' }).click();
      expect(await page.locator('details.round[open]').count()).toBe(256);
      // Collapsed, a round is one line: the whole list stays within a few screens.
      await page.getByRole('button', { name: 'Collapse all' }).click();
      const list = await page.locator('.rounds').boundingBox();
      expect(list?.height).toBeLessThan(256 * 45);
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('is readable at 1,280 pixels: the path the diagram highlights is listed beside it as text, and a click shows the diagram at full size', async () => {
      // The real statechart, as `ralph report` inlines it: drawn to fit, its labels are a few pixels tall.
      const realSvg = readFileSync(new URL('../../visualizations/ralph.svg', import.meta.url), 'utf8');
      const file = join(dir, 'readable.html');
      await writeFile(file, renderRunPage(demoRun(), { machineSvg: realSvg }));
      const url = pathToFileURL(file).href;
      const { page, faults } = await openWatchedPage(browser, (requested) => requested === url);
      await page.goto(url);

      const list = page.locator('#chart .path-states');
      expect(await list.locator('li code').allTextContents()).toEqual([
        'validating',
        'round',
        'awaitingReport',
        'reviewingReport',
        'complete',
      ]);
      expect(await list.locator('li').nth(1).textContent()).toBe('round ×3');
      expect(await list.locator('li').last().textContent()).toBe('complete ended here');
      const listBox = await list.boundingBox();
      const chartBox = await page.locator('#chart .chart-box').boundingBox();
      if (listBox === null || chartBox === null) throw new Error('the path list or the diagram is not shown');
      // Beside the diagram, inside the page's width, in the same screenful as the diagram's top.
      expect(listBox.x).toBeGreaterThanOrEqual(chartBox.x + chartBox.width);
      expect(listBox.x + listBox.width).toBeLessThanOrEqual(1280);
      expect(listBox.y).toBeLessThan(chartBox.y + 200);
      const listFontPx = await page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#chart .path-states')).fontSize)",
      );
      expect(listFontPx).toBeGreaterThanOrEqual(13);

      const labelPx = () =>
        page
          .locator('#chart svg g.node.state text')
          .first()
          .evaluate((element) => element.getBoundingClientRect().height);
      expect(await labelPx()).toBeLessThan(8); // drawn to fit: why the list is there
      await page.locator('#chart .chart-box').click();
      expect(await labelPx()).toBeGreaterThanOrEqual(11); // full size: as Graphviz set it, 9 pt
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('shows a failed run with its error, the failed round and the last handoff', async () => {
      const { page, faults } = await open('failed', failedRun());
      const ending = await page.locator('#ending').textContent();
      expect(ending).toContain('Ralph round 2 child failed before producing a structured report.');
      expect(ending).toContain('"summary": "Round 1: did task 1, its check passed, so it is ticked."');
      expect(await page.locator('#state-failed').getAttribute('class')).toMatch(
        /\brun-final\b.*\btone-bad\b/,
      );
      expect(await page.locator('#round-2 .badge').textContent()).toBe('failed');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('highlights a recorded run of a nested machine by path: the state, the boxes around it, the edges it took', async () => {
      const model = buildRunModel(await recordNestedRun());
      expect(model.path.map((entry) => entry.state)).toEqual([
        'validating',
        'running.round.starting',
        'running.round.awaitingReport',
        'running.deciding.checking',
        'running.round.starting',
        'running.round.awaitingReport',
        'cancelling',
      ]);
      const { page, faults } = await open('nested', model, await nestedSvg());
      const classes = (id: string) => page.locator(`[id="${id}"]`).getAttribute('class');
      for (const key of [
        'validating',
        'running',
        'running.round',
        'running.round.starting',
        'running.round.awaitingReport',
        'running.deciding',
        'running.deciding.checking',
      ])
        expect(await classes(`state-${key}`)).toMatch(/\bvisited\b/);
      expect(await classes('state-running')).toMatch(/^cluster state compound\b/);
      // A visited box is marked by its border; its own fill stays, so that the boxes inside it read apart.
      const paint = (id: string) =>
        page.evaluate(
          `(() => { const style = getComputedStyle(document.getElementById(${JSON.stringify(id)}).querySelector('path')); return [style.stroke, style.fill]; })()`,
        );
      expect(await paint('state-running')).toEqual(['rgb(9, 105, 218)', 'rgb(248, 250, 252)']);
      expect(await paint('state-running.round')).toEqual(['rgb(9, 105, 218)', 'rgb(238, 242, 247)']);
      expect(await classes('state-cancelling')).toMatch(/\bvisited\b.*\bcurrent\b/);
      for (const key of [
        'running.deciding.complete',
        'running.deciding.exhausted',
        'done',
        'failed',
        'cancelled',
      ])
        expect(await classes(`state-${key}`)).not.toMatch(/\bvisited\b/);
      for (const id of ['initial-running', 'initial-running.round', 'initial-running.deciding'])
        expect(await classes(id)).toMatch(/\bvisited\b/);
      for (const id of [
        'edge-validating-0', // START, into the running box
        'edge-initial-running-0', // its start, into the round box
        'edge-initial-running.round-0', // the round box's start
        'edge-running.round.starting-0',
        'edge-running.round.awaitingReport-0', // REPORT, into the deciding box
        'edge-initial-running.deciding-0',
        'edge-running.deciding.checking-1', // back to the round box: rounds remain
        'edge-running-0', // CANCEL, out of the running box
      ])
        expect(await classes(id)).toMatch(/\btaken\b/);
      for (const id of [
        'edge-running.round-0', // the round timer: REPORT, the inner state's own edge, was taken instead
        'edge-running.round.starting-1',
        'edge-running.deciding-0',
        'edge-running.deciding.checking-0',
      ])
        expect(await classes(id)).not.toMatch(/\btaken\b/);
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('highlights a flat recording (states by their own keys) on the nested diagram, boxes included', async () => {
      const model = buildRunModel(await recordNestedRun());
      const flat = {
        ...model,
        path: model.path.map((entry) => ({ ...entry, state: entry.state.split('.').at(-1) as string })),
      };
      const { page, faults } = await open('nested-flat', flat, await nestedSvg());
      const classes = (id: string) => page.locator(`[id="${id}"]`).getAttribute('class');
      for (const key of [
        'running',
        'running.round',
        'running.round.awaitingReport',
        'running.deciding.checking',
      ])
        expect(await classes(`state-${key}`)).toMatch(/\bvisited\b/);
      expect(await classes('edge-running.round.awaitingReport-0')).toMatch(/\btaken\b/);
      expect(await classes('state-cancelling')).toMatch(/\bcurrent\b/);
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });
  },
);
