import { existsSync } from 'node:fs';
import { chmod, cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingUnreadable, reportWritten } from '../../src/hosts/cli/report-command.js';
import { defaultReportPath } from '../../src/hosts/cli/report-path.js';
import { makeWorkspace, PLAN_AGENT_COMMAND, ralph } from '../fixtures/cli-agents/harness.js';
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

  /** A recording of a run whose second round's agent failed, as `ralph run --record` writes it; its lines. */
  async function failedRunRecording(dir: string): Promise<string[]> {
    const workspace = await makeWorkspace(['continue', 'fail']);
    try {
      const recording = join(dir, 'run.jsonl');
      const run = await ralph([
        'run',
        'Fail in round 2',
        '--agent-command',
        PLAN_AGENT_COMMAND,
        '--cwd',
        workspace.dir,
        '--record',
        recording,
      ]);
      expect(run.code).toBe(1);
      return (await readFile(recording, 'utf8')).trimEnd().split('\n');
    } finally {
      await workspace.cleanup();
    }
  }

  /** The number (1-based) of the recorded snapshot line that carries the machine's output. */
  const outputLine = (lines: string[]): number =>
    lines.findIndex((line) => JSON.parse(line).snapshot?.output !== undefined) + 1;

  const refresh = '<meta http-equiv="refresh" content="0;url=data:,moved">';
  const craftedOutputs: [
    string,
    (snapshot: { output: { failure: Record<string, unknown> }; context: Record<string, unknown> }) => void,
  ][] = [
    [
      'a failure round that is markup, not a number',
      (snapshot) => {
        snapshot.output.failure.round = refresh;
      },
    ],
    [
      'an output of another shape (a failure that is a string)',
      (snapshot) => {
        (snapshot.output as unknown as Record<string, unknown>).failure = refresh;
      },
    ],
    [
      'a handoff that is not a report',
      (snapshot) => {
        snapshot.context.handoff = { summary: refresh };
      },
    ],
  ];
  for (const [crafted, craft] of craftedOutputs) {
    it(`refuses a recording whose machine output holds ${crafted}, naming the line (exit 2), writing nothing; replay refuses it too`, async () => {
      const dir = await tempDir();
      const lines = await failedRunRecording(dir);
      const number = outputLine(lines);
      const line = JSON.parse(lines[number - 1] as string);
      craft(line.snapshot);
      lines[number - 1] = JSON.stringify(line);
      const file = join(dir, 'crafted.jsonl');
      await writeFile(file, `${lines.join('\n')}\n`);
      const output = join(dir, 'crafted.html');

      const report = await ralph(['report', file, '-o', output]);
      const replay = await ralph(['replay', file]);

      expect(report.code).toBe(2);
      expect(report.stderr).toMatch(
        new RegExp(
          `^ralph report cannot read ${file}: line ${number}: has a snapshot whose (output is not a run's result|handoff is not a report) \\(`,
        ),
      );
      expect(existsSync(output)).toBe(false);
      expect(replay.code).toBe(2);
      expect(replay.stderr).toContain(`line ${number}: has a snapshot whose`);
    });
  }

  it('writes the report readable by its owner only (0600), as the recording is, also over an existing file', async () => {
    const dir = await tempDir();
    await failedRunRecording(dir);
    const recording = join(dir, 'run.jsonl');
    const fresh = join(dir, 'fresh.html');
    const existing = join(dir, 'existing.html');
    await writeFile(existing, 'an older report', { mode: 0o644 });
    await chmod(existing, 0o644);

    expect((await ralph(['report', recording, '-o', fresh])).code).toBe(0);
    expect((await ralph(['report', recording, '-o', existing])).code).toBe(0);

    expect((await stat(recording)).mode & 0o777).toBe(0o600);
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect((await stat(existing)).mode & 0o777).toBe(0o600);
    expect(await readFile(existing, 'utf8')).toMatch(/^<!doctype html>/);
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
