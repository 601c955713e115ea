import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { batchScene } from '../support/batch-scene.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { gitIn } from '../support/git-repo.js';
import { pngSize } from '../support/png.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);

/** Markup in an objective: the pages must show it as text and run none of it. */
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

/** Where the screenshots go when a person wants to look at them (RALPH_TEST_SCREENSHOTS); else nowhere. */
function keepShot(name: string, png: Buffer): void {
  const dir = process.env.RALPH_TEST_SCREENSHOTS;
  if (dir === undefined) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), png);
}

/** A repository, and a tasks file beside it in a folder whose name has a space, as a user's may. */
const setup = (tasks: unknown) => batchScene(tasks, { 'shared.txt': 'base\n' }, 'my tasks');

/** `ralph report` of the batch's recording; the batch page's path. */
async function report(recording: string, output: string): Promise<string> {
  const page = await ralph(['report', recording, '-o', output]);
  expect(page.code, page.stderr).toBe(0);
  return output;
}

/** The text of every element `selector` finds, as the page shows it (a line break where the page breaks one). */
const texts = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allInnerTexts();

describe.skipIf(NO_BROWSER !== undefined)(
  `the batch's page and its tasks' run pages${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`,
  { timeout: 90_000 },
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    }, 60_000);

    /** Opens a page of a file as a person would, watching for errors and requests (none may be made). */
    async function open(file: string) {
      const url = pathToFileURL(file).href;
      const watched = await openWatchedPage(browser, (requested) => requested === url);
      await watched.page.goto(url);
      return watched;
    }

    test('say where the batch landed, its totals and next steps, and per task its outcome, branch, worktree, landing commit and next step; a task that needs review does not read as complete', async () => {
      const { repo, tasksFile, env } = setup([
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
        { id: 'broken', objective: 'write half.txt half\ncrash' },
        { id: 'later', objective: 'write later.txt later', after: ['broken'] },
        { id: 'hostile', objective: `write hostile.txt ok${HOSTILE}` },
      ]);
      const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
        cwd: repo,
        env,
      });
      expect(run.code, run.stdout + run.stderr).toBe(1);
      const landed = /^(left|right): landed$/m.exec(run.stdout)?.[1] as string;
      const other = landed === 'left' ? 'right' : 'left';
      const id = /--rollback (\S+)/.exec(run.stdout)?.[1] as string;
      const target = `ralph/batch-${id}`;
      const recording = /^recording (\S+);/m.exec(run.stdout)?.[1] as string;
      const folder = dirname(recording);
      const html = await report(recording, join(dirname(repo), 'batch page.html'));
      const text = readFileSync(html, 'utf8');
      // Everything a task says is escaped; the markup in an objective is text.
      expect(text).not.toContain('<img src=x');
      expect(text).toContain('&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;');

      const { page, faults } = await open(html);
      expect(await page.locator('#batch-status').textContent()).toBe('Settled');
      const batch = (await texts(page, '#batch')).join('');
      expect(batch).toContain(`${target} (the batch's own session branch, made from HEAD)`);
      const start = gitIn(repo, 'rev-parse', `ralph/batch-${id}/start^{commit}`);
      expect(batch).toContain(`${start.slice(0, 12)}, tagged ralph/batch-${id}/start`);
      expect(batch).toContain(resolve(recording));
      expect(await texts(page, '#totals li')).toEqual([
        '2\nlanded',
        '1\nneed review',
        '1\nfailed',
        '1\nskipped',
        '0\ncancelled',
        expect.stringMatching(/^4\nrounds$/),
        '—\ncost',
        expect.stringMatching(/^\d+(\.\d)? (ms|s)\nduration$/),
      ]);
      expect(await texts(page, '#next-steps li')).toEqual([
        `See what landed on ${target}:\ngit log --oneline ${start}..${target}`,
        `Undo the whole batch: ${target} back on the commit it started from.\nralph batch --rollback ${id}`,
      ]);
      const row = (status: string) => texts(page, `tr.status-${status} td`);
      // The task that needs review: why, where its work is (its worktree kept), and how to land it once fixed.
      const review = await row('needs-review');
      expect(review.slice(0, 4)).toEqual([
        other,
        `write shared.txt ${other}`,
        'Needs review: conflict in shared.txt',
        'shared.txt',
      ]);
      expect(review[4]).toBe(`branch ralph/${id}/${other}\nworktree ${join(folder, other)}`);
      expect(review[7]).toBe(
        `Fix the branch ralph/${id}/${other} by hand, then land it:\nralph batch --land ${id} ${other}`,
      );
      expect(existsSync(join(folder, other))).toBe(true);
      // The landed tasks: the commit each moved the target to, which holds its work; their worktrees are gone.
      const landedRows = await page.locator('tr.status-landed').count();
      expect(landedRows).toBe(2);
      for (const [task, file, content] of [
        [landed, 'shared.txt', landed],
        ['hostile', 'hostile.txt', `ok${HOSTILE}`],
      ] as const) {
        const cells = await texts(page, `tr.status-landed:has(a:text-is("${task}")) td`);
        const commit = /landed as ([0-9a-f]{40})/.exec(cells[4] as string)?.[1] as string;
        expect(cells[2]).toBe(`Landed on ${target} at ${commit.slice(0, 12)}`);
        expect(cells[4]).toBe(
          `branch ralph/${id}/${task}\nworktree ${join(folder, task)} (removed)\nlanded as ${commit}`,
        );
        expect(gitIn(repo, 'show', `${commit}:${file}`)).toBe(content);
        gitIn(repo, 'merge-base', '--is-ancestor', commit, target);
        expect(cells[7]).toBe('—');
      }
      const failed = await row('failed');
      expect(failed[2]).toMatch(/^Failed: Ralph round 1 child failed before producing a structured report\./);
      expect(failed[4]).toBe(`branch ralph/${id}/broken\nworktree ${join(folder, 'broken')}`);
      expect((await row('skipped'))[2]).toBe('Skipped: a task it comes after did not land');
      expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
      const shot = await page.screenshot({ fullPage: true });
      expect(pngSize(shot).width).toBeGreaterThanOrEqual(1280);
      keepShot('batch-page.png', shot);
      expect(faults).toEqual({ errors: [], requests: [] });

      // The run page of the task that needs review says so beside its run's own "Complete", and how to go on.
      const href = await page.locator(`tr.status-needs-review a`).getAttribute('href');
      await page.close();
      const runPage = resolve(dirname(html), href as string);
      expect(runPage).toBe(join(folder, 'runs', `${other}.html`));
      const opened = await open(runPage);
      expect(await opened.page.locator('#run-status').textContent()).toBe('Complete');
      expect(await opened.page.locator('#batch-outcome').textContent()).toBe('Batch: Needs review');
      expect(await opened.page.locator('#batch-outcome-line').textContent()).toBe(
        'Needs review: conflict in shared.txt',
      );
      const card = (await texts(opened.page, 'section#batch')).join('');
      expect(card).toContain(`In batch ${id}`);
      expect(card).toContain(`Branch\nralph/${id}/${other}`);
      expect(card).toContain(`Worktree\n${join(folder, other)}`);
      expect(card).toContain(`ralph batch --land ${id} ${other}`);
      expect(await opened.page.title()).toMatch(/: complete; batch: Needs review: conflict in shared\.txt$/);
      const back = await opened.page.locator('section#batch a').getAttribute('href');
      expect(resolve(dirname(runPage), back as string)).toBe(html);
      keepShot('batch-task-run-page.png', await opened.page.screenshot({ fullPage: true }));
      expect(opened.faults).toEqual({ errors: [], requests: [] });
      await opened.page.close();

      // A landed task's run page says where it landed.
      const landedPage = await open(join(folder, 'runs', `${landed}.html`));
      expect(await landedPage.page.locator('#batch-outcome').textContent()).toMatch(
        new RegExp(`^Batch: Landed on ${target} at [0-9a-f]{12}$`),
      );
      await landedPage.page.close();
    });

    test("a cancelled batch's page says how to resume it, with its tasks file and recording quoted for the shell", async () => {
      const { repo, tasksFile, env, agentLines } = setup([
        { id: 'h0', objective: 'write f0.txt 0\nhang' },
        { id: 'h1', objective: 'write f1.txt 1\nhang' },
      ]);
      const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
        cwd: repo,
        env,
      });
      await waitUntil(
        () => agentLines().filter((l) => l.startsWith('start')).length === 2,
        'two agents to start',
      );
      batch.child.kill('SIGINT');
      const end = await batch.finished;
      expect(end.code, end.stdout + end.stderr).toBe(130);
      const recording = /^recording (\S+);/m.exec(end.stdout)?.[1] as string;
      const html = await report(recording, join(dirname(repo), 'cancelled.html'));
      const { page, faults } = await open(html);
      expect(await page.locator('#batch-status').textContent()).toBe('Cancelled (interrupted)');
      const resume = `ralph batch ${quote([tasksFile])} --resume ${recording}`;
      expect(resume).toContain("'"); // the tasks file's folder has a space: the command quotes it
      expect(await texts(page, '#next-steps li')).toEqual([
        `Resume the batch: its cancelled tasks run again from their branches.\n${resume}`,
      ]);
      for (const task of ['h0', 'h1']) {
        const cells = await texts(page, `tr.status-cancelled:has(a:text-is("${task}")) td`);
        expect(cells[2]).toBe('Cancelled: the batch was cancelled');
        expect(cells[7]).toBe(`Run it again from its branch, with the batch resumed:\n${resume}`);
      }
      expect((await texts(page, '#totals li')).slice(0, 5)).toEqual([
        '0\nlanded',
        '0\nneed review',
        '0\nfailed',
        '0\nskipped',
        '2\ncancelled',
      ]);
      keepShot('batch-page-cancelled.png', await page.screenshot({ fullPage: true }));
      expect(faults).toEqual({ errors: [], requests: [] });
      await page.close();
    });
  },
);
