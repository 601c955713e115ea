import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evaluatedCompleteLabel, evaluatorChangedWorkspace } from '../../src/contract/evaluator-messages.js';
import { workflowFailed } from '../../src/contract/messages.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { type EvaluatedRun, evaluatedRun } from '../support/evaluator-run.js';

// `ralph run --evaluator-command … --record run.jsonl`, then `ralph report run.jsonl -o run.html`, opened in Chromium:
// each evaluation is shown in the round it judged, the result says an evaluator accepted, and the statechart marks
// the evaluating path the run took.

const runs: EvaluatedRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => run.cleanup()));
});

/** A recorded evaluated run and its report page's path. */
async function reported(edits?: string): Promise<{ run: EvaluatedRun; html: string }> {
  const run = await evaluatedRun({
    extra: (folder) => ['--record', join(folder, 'run.jsonl')],
    ...(edits === undefined ? {} : { edits }),
  });
  runs.push(run);
  const html = join(run.folder, 'run.html');
  const report = await ralph(['report', join(run.folder, 'run.jsonl'), '-o', html]);
  expect(report.code).toBe(0);
  return { run, html };
}

/** The classes of the (first) element `selector` finds, as a list: parallel edges (one per guard) are marked alike. */
const classesOf = async (page: Page, selector: string): Promise<string[]> =>
  ((await page.locator(selector).first().getAttribute('class')) ?? '').split(/\s+/);

/** The statechart's edge from `source` to `target` (both dot paths), whichever its number in the diagram. */
const edge = (source: string, target: string): string =>
  `.chart-box svg g.edge[class~="from-${source}"][class~="to-${target}"]`;

describe.skipIf(NO_BROWSER !== undefined)(
  `ralph report of a run with an evaluator, in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  { timeout: 90_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function open(html: string) {
      const url = pathToFileURL(html).href;
      const watched = await openWatchedPage(browser, (requested) => requested === url);
      await watched.page.goto(url);
      return watched;
    }

    it('a completion rejected once, then accepted: each verdict in its round, the evaluated label, the evaluating path marked', async () => {
      const { run, html } = await reported();
      expect(run.finished.code).toBe(0);
      const { page, faults } = await open(html);

      const label = evaluatedCompleteLabel(2, 'command-evaluator');
      expect(await page.locator('#ending .label').textContent()).toBe(label);
      expect(await page.locator('#run-status').textContent()).toBe('Complete');

      expect(await page.locator('#round-1 summary .badge').textContent()).toBe('rejected');
      const first = page.locator('#evaluation-1');
      expect(await first.locator('.verdict').textContent()).toMatch(
        /^rejected The evaluator command-evaluator rejected the reported completion, in [\d.]+ (ms|s)\.$/,
      );
      expect(await first.locator('ul').first().locator('li').allTextContents()).toEqual([
        'add.js is missing',
        'no test covers add()',
      ]);
      expect(await first.locator('.child code').textContent()).toMatch(/-r1-pid\d+$/);

      expect(await page.locator('#round-2 summary .badge').textContent()).toBe('complete');
      const second = page.locator('#evaluation-2');
      expect(await second.locator('.badge').textContent()).toBe('accepted');
      expect(await second.locator('ul').last().locator('li').allTextContents()).toEqual([
        'add.js exports add',
        'npm test passes',
      ]);
      expect(await second.textContent()).not.toContain('Changed files');

      for (const state of [
        'running.evaluating',
        'running.evaluating.starting',
        'running.evaluating.awaitingVerdict',
        'running.reviewingVerdict.checking',
        'running.reviewingVerdict.decided',
      ])
        expect(await classesOf(page, `#state-${state.replaceAll('.', '\\.')}`)).toContain('visited');
      expect(await classesOf(page, '#state-complete')).toEqual(
        expect.arrayContaining(['run-final', 'tone-good']),
      );
      for (const [source, target] of [
        ['running.reviewingReport.accepted', 'running.evaluating'],
        ['running.evaluating.starting', 'running.evaluating.awaitingVerdict'],
        ['running.reviewingVerdict.decided', 'running.nextRound'],
        ['running.reviewingVerdict.decided', 'complete'],
      ])
        expect(await classesOf(page, edge(source as string, target as string))).toContain('taken');
      expect(await classesOf(page, edge('running.reviewingVerdict.decided', 'budgetLimited'))).not.toContain(
        'taken',
      );
      expect(await classesOf(page, '#state-stoppingEvaluator')).not.toContain('visited');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });

    it('an evaluator that changed the workspace: its round names the files, the error says the workflow failed', async () => {
      const { run, html } = await reported('sneaky.txt');
      expect(run.finished.code).toBe(1);
      const { page, faults } = await open(html);

      expect(await page.locator('#run-status').textContent()).toBe('Workflow failed');
      expect(await page.locator('#ending .message').textContent()).toBe(
        workflowFailed(evaluatorChangedWorkspace(1, ['sneaky.txt (added)'])),
      );
      const evaluation = page.locator('#evaluation-1');
      expect(await evaluation.locator('.badge').textContent()).toBe('failed');
      expect(await evaluation.locator('.changed').textContent()).toBe(
        'It changed the workspace, which an evaluator must not do: sneaky.txt (added)',
      );
      expect(await classesOf(page, '#state-failed')).toEqual(
        expect.arrayContaining(['run-final', 'tone-bad']),
      );
      expect(await classesOf(page, edge('running.reviewingVerdict.checking', 'failed'))).toContain('taken');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
      expect(await readFile(join(run.workspace, 'sneaky.txt'), 'utf8')).toBe('the evaluator wrote this\n');
    });
  },
);
