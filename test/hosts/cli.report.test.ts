import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReportPath, recordingUnreadable, reportWritten } from '../../src/hosts/cli/report.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { pngSize } from '../support/png.js';

const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));
const DEMO_OBJECTIVE =
  'Work through TASKS.md in this workspace: do each unchecked task, tick it off, and report complete when every task is checked.';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
  dirs.push(dir);
  return dir;
}

describe('ralph report', () => {
  it('refuses a recording it cannot read (exit 2), writing nothing', async () => {
    const dir = await tempDir();
    const missing = join(dir, 'missing.jsonl');
    const out = await ralph(['report', missing, '-o', join(dir, 'run.html')]);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`${recordingUnreadable(missing, 'ENOENT')}\n`);
  });

  it('refuses a file that is not a recording, naming the line (exit 2), writing nothing', async () => {
    const dir = await tempDir();
    const file = join(dir, 'notes.jsonl');
    await writeFile(file, 'not a recording\n');
    const output = join(dir, 'run.html');
    const out = await ralph(['report', file, '-o', output]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`^ralph report cannot read ${file}: line 1: `));
    expect(existsSync(output)).toBe(false);
  });

  it('writes next to the recording by default: run.jsonl gives run.html', () => {
    expect(defaultReportPath('/tmp/x/run.jsonl')).toBe('/tmp/x/run.html');
    expect(defaultReportPath('run.log')).toBe('run.log.html');
  });

  it.skipIf(NO_BROWSER !== undefined)(
    'reports a recorded demo loop as one page Chromium shows every round of',
    async () => {
      const dir = await tempDir();
      const workspace = join(dir, 'demo');
      await cp(DEMO_WORKSPACE, workspace, { recursive: true });
      const recording = join(dir, 'run.jsonl');
      const run = await ralph([
        'run',
        DEMO_OBJECTIVE,
        '--agent',
        'example',
        '--cwd',
        workspace,
        '--record',
        recording,
      ]);
      expect(run.code).toBe(0);

      const html = join(dir, 'run.html');
      const report = await ralph(['report', recording, '-o', html]);
      expect(report.code).toBe(0);
      expect(report.stderr).toBe(`${reportWritten(html)}\n`);

      const browser = await launchBrowser();
      try {
        const url = pathToFileURL(html).href;
        const { page, faults } = await openWatchedPage(browser, (requested) => requested === url);
        await page.goto(url);
        expect(await page.locator('details.round').count()).toBe(3);
        for (const round of [1, 2, 3]) {
          expect(await page.locator(`#round-${round} .body .summary`).textContent()).toMatch(
            new RegExp(`^Round ${round}: did task ${round} `),
          );
        }
        expect(await page.locator('#state-complete').getAttribute('class')).toMatch(/\brun-final\b/);
        const shot = await page.screenshot({ fullPage: true });
        expect(pngSize(shot).width).toBeGreaterThan(800);
        expect(shot.length).toBeGreaterThan(50_000);
        expect(faults).toEqual({ errors: [], requests: [] });
      } finally {
        await browser.close();
      }
    },
  );
});
