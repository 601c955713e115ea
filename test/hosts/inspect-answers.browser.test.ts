import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openRunInspector, type RunInspector } from '../../src/hosts/cli/inspect-run.js';
import { answeredHandoff, DEFAULT_MAX_HANDOFF_CHARS, type RalphEnvelope } from '../../src/index.js';
import { NO_BROWSER, openWatchedPage, useBrowser } from '../support/browser.js';
import { blockedReport, completeReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

// `ralph run --inspect` of a run that asks (`--ask`), in Chromium: the live page shows the question the run waits on
// with an answer box, and the answer typed there is the one the next round starts with. The run is the engine's,
// recorded into the inspector as `ralph run` records it; the inspector's answers are the run's answer source.

const BLOCKER = 'Which database? <img src=x onerror="document.title=1">';
const ANSWER = 'Postgres 16 <b>not bold</b>';

/**
 * A run that blocks in round 1 and completes in round 2, followed by a live inspector and answered through it;
 * `start` starts it (at once unless `later`: then once the test calls it, with a page already open).
 */
async function askingRun(later = false) {
  const inspector = (await openRunInspector({ inspect: true }, new PassThrough())) as RunInspector;
  const { tool, provider } = scriptedTool(
    [{ report: blockedReport(BLOCKER) }, { report: completeReport() }],
    { waitForAnswersMs: 600_000 },
  );
  let result: Promise<RalphEnvelope> | undefined;
  const start = () => {
    result = tool.execute(
      { objective: 'Migrate the schema', maxRounds: 3 },
      { agent, record: inspector.sink, answers: inspector.answers },
    );
    result.catch(() => {});
    return result;
  };
  if (!later) start();
  const events = new URL(`/events${new URL(inspector.url).search}`, inspector.url).href;
  const answer = new URL('/answer', inspector.url).href;
  const allowed = (url: string) => url === inspector.url || url === events || url === answer;
  return { inspector, provider, result: () => result ?? start(), start, allowed, answer };
}

describe.skipIf(NO_BROWSER !== undefined)(
  `the live page answers a run's question in Chromium${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  { timeout: 60_000 },
  () => {
    const browserOf = useBrowser();

    it('shows the waiting question as text; the answer typed and sent starts the next round with it', async () => {
      const { inspector, provider, result, allowed } = await askingRun();
      const { page, faults } = await openWatchedPage(browserOf(), allowed);
      await page.goto(inspector.url);
      await page.waitForSelector('#answer-box:not([hidden])');
      expect(await page.locator('#answer-question').textContent()).toBe(BLOCKER);
      expect(await page.locator('#answer-round').textContent()).toBe('1');
      expect(await page.locator('#run-status').textContent()).toBe('Waiting for an answer');
      expect(await page.locator('#answer-box img').count()).toBe(0);

      await page.locator('#answer-text').fill(ANSWER);
      await page.locator('#answer-send').click();
      const envelope = await result();
      expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
      expect(provider.requests[1]?.handoff).toEqual(
        answeredHandoff(blockedReport(BLOCKER), ANSWER, DEFAULT_MAX_HANDOFF_CHARS),
      );

      // The page follows: the box goes, the round shows the answer as text and who gave it.
      await page.waitForSelector('#run-status:text("Complete")');
      await page.waitForSelector('#answer-box[hidden]', { state: 'attached' });
      expect(await page.locator('#answer-1').textContent()).toBe(ANSWER);
      expect(await page.locator('#answer-1 b').count()).toBe(0);
      expect(await page.locator('#question-1 .by').textContent()).toBe('live page');
      expect(await page.locator('#question-1 .badge').textContent()).toBe('answered');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
      await inspector.finish();
    });

    it('shows a page opened before the run the question once it waits; a give-up ends the run blocked', async () => {
      const { inspector, start, allowed } = await askingRun(true);
      const { page, faults } = await openWatchedPage(browserOf(), allowed);
      await page.goto(inspector.url);
      await page.waitForSelector('#live-note:text("Live: following the run.")');
      expect(await page.locator('#answer-box').isHidden()).toBe(true);
      const result = start();
      await page.waitForSelector('#answer-box:not([hidden])');
      expect(await page.locator('#answer-question').textContent()).toBe(BLOCKER);
      await page.locator('#answer-give-up').click();
      const envelope = await result;
      expect(envelope.result).toMatchObject({
        status: 'blocked',
        rounds: 1,
        question: { reason: 'given-up' },
      });
      await page.waitForSelector('#run-status:text("Blocked")');
      expect(await page.locator('#question-1 .badge').textContent()).toBe('given up');
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
      await inspector.finish();
    });

    it('refuses an answer without the token, and a page opened without it: the run goes on waiting', async () => {
      const { inspector, result, allowed, answer } = await askingRun();
      const bare = new URL('/', inspector.url).href;
      const stranger = await browserOf().newPage();
      expect((await stranger.goto(bare))?.status()).toBe(403);
      expect(await stranger.content()).not.toContain('Which database');
      await stranger.close();

      const { page } = await openWatchedPage(browserOf(), allowed);
      await page.goto(inspector.url);
      await page.waitForSelector('#answer-box:not([hidden])');
      // The page's own script, but with no token: refused, and the question still waits.
      const status = await page.evaluate(async (url) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ round: 1, answer: { kind: 'answer', text: 'sneaked in' } }),
        });
        return response.status;
      }, answer);
      expect(status).toBe(403);
      expect(await page.locator('#answer-box').isVisible()).toBe(true);

      // A refused answer is said in the box, and the person can send again.
      await page.locator('#answer-text').fill(' ');
      await page.locator('#answer-send').click();
      await page.waitForSelector('#answer-note:text("empty answer")');
      expect(await page.locator('#answer-send').isDisabled()).toBe(false);
      await page.locator('#answer-text').fill('MySQL');
      await page.locator('#answer-send').click();
      expect((await result()).result.status).toBe('complete');
      await page.close();
      await inspector.finish();
    });
  },
);
