import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  recordingUnreadable,
  reportUnwritable,
  reportWritten,
  symlinkRefused,
} from '../../src/hosts/cli/report-command.js';
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

  /** A batch's recording in `<dir>/batch/` whose header names `runs` for its one task `a`, as a shared file could. */
  async function craftedBatch(dir: string, runs: Record<string, string>): Promise<string> {
    await mkdir(join(dir, 'batch'), { recursive: true });
    const header = {
      kind: 'ralph-batch',
      formatVersion: 1,
      batchId: '20261201-1522-a1b2c3',
      startedAt: new Date(0).toISOString(),
      target: 'ralph/batch-20261201-1522-a1b2c3',
      start: '0'.repeat(40),
      parallel: 1,
      tasks: [{ id: 'a', objective: 'A task', after: [] }],
      runs,
      process: null,
    };
    const file = join(dir, 'batch', 'batch.jsonl');
    await writeFile(file, `${JSON.stringify(header)}\n`);
    return file;
  }

  it('refuses a batch whose header names a run outside its runs/ folder (by .., absolute, or a link), writing nothing', async () => {
    const dir = await tempDir();
    const lines = await failedRunRecording(dir);
    await mkdir(join(dir, 'other'));
    await writeFile(join(dir, 'other', 'victim-run.jsonl'), `${lines.join('\n')}\n`);
    const outside = `task "a"'s run`;
    for (const runFile of [
      '../other/victim-run.jsonl',
      join(dir, 'other', 'victim-run.jsonl'),
      'runs/../../other/victim-run.jsonl',
    ]) {
      const batch = await craftedBatch(dir, { a: runFile });
      const out = await ralph(['report', batch]);
      expect(out.code, runFile).toBe(2);
      expect(out.stderr).toBe(
        `${recordingUnreadable(batch, `${outside} ${JSON.stringify(runFile)} is not in the batch's runs/ folder`)}\n`,
      );
    }
    // runs/ itself a link out of the batch's folder: the page would be written beside the victim.
    await symlink(join(dir, 'other'), join(dir, 'batch', 'runs'));
    const linked = await craftedBatch(dir, { a: 'runs/victim-run.jsonl' });
    const out = await ralph(['report', linked]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${outside} "runs/victim-run.jsonl" is not in the batch's runs/ folder`);
    expect(existsSync(join(dir, 'other', 'victim-run.html'))).toBe(false);
    expect(existsSync(join(dir, 'batch', 'batch.html'))).toBe(false);
  });

  it('does not write through a symbolic link at a report path: refused (exit 2), what it points at untouched', async () => {
    const dir = await tempDir();
    const lines = await failedRunRecording(dir);
    const recording = join(dir, 'run.jsonl');
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'keep me\n');
    await symlink(victim, join(dir, 'run.html'));
    const out = await ralph(['report', recording]);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`${reportUnwritable(join(dir, 'run.html'), symlinkRefused)}\n`);
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    // A dangling link: nothing is created where it points.
    const missing = join(dir, 'missing.txt');
    await symlink(missing, join(dir, 'dangling.html'));
    const dangling = await ralph(['report', recording, '-o', join(dir, 'dangling.html')]);
    expect(dangling.code).toBe(2);
    expect(dangling.stderr).toBe(`${reportUnwritable(join(dir, 'dangling.html'), symlinkRefused)}\n`);
    expect(existsSync(missing)).toBe(false);
    // A batch's run page, written beside its run's recording in runs/, is not written through a link either.
    const batch = await craftedBatch(dir, { a: 'runs/a.jsonl' });
    await mkdir(join(dir, 'batch', 'runs'));
    await writeFile(join(dir, 'batch', 'runs', 'a.jsonl'), `${lines.join('\n')}\n`);
    await symlink(victim, join(dir, 'batch', 'runs', 'a.html'));
    const page = await ralph(['report', batch]);
    expect(page.code).toBe(2);
    expect(page.stderr).toBe(`${reportUnwritable(join(dir, 'batch', 'runs', 'a.html'), symlinkRefused)}\n`);
    expect(await readFile(victim, 'utf8')).toBe('keep me\n');
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
