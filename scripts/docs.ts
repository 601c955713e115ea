// Makes the pictures in docs/ (npm run docs): the machine's SVG, as `ralph viz` draws it, and a screenshot of the
// HTML report of a recorded demo loop, taken in headless Debian chromium. Run after changing the machine or the page.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { DEMO_OBJECTIVE } from '../src/hosts/cli/demo.js';
import { machineHash } from '../src/inspect/machine-hash.js';
import { ralphMachine } from '../src/machines/ralph.machine.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ralph = join(root, 'dist', 'hosts', 'cli', 'main.js');
const scratch = mkdtempSync(join(tmpdir(), 'ralph-docs-'));
try {
  copyFileSync(join(root, 'visualizations', 'ralph.svg'), join(root, 'docs', 'ralph.svg'));

  const workspace = join(scratch, 'demo');
  cpSync(join(root, 'examples', 'demo-workspace'), workspace, { recursive: true });
  const recording = join(scratch, 'run.jsonl');
  const report = join(scratch, 'run.html');
  const quiet = { stdio: 'ignore' as const };
  execFileSync(
    process.execPath,
    [ralph, 'run', DEMO_OBJECTIVE, '--agent', 'example', '--cwd', workspace, '--record', recording],
    quiet,
  );
  execFileSync(process.execPath, [ralph, 'report', recording, '-o', report], quiet);

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${report}`);
    await page.screenshot({ path: join(root, 'docs', 'demo-report.png'), fullPage: true });
  } finally {
    await browser.close();
  }
  // What the screenshot was taken of, so a test can tell it is stale without comparing pixels.
  const sidecar = { png: 'demo-report.png', machineHash: machineHash(ralphMachine) };
  writeFileSync(join(root, 'docs', 'demo-report.json'), `${JSON.stringify(sidecar, null, 2)}\n`);
  process.stdout.write('docs: wrote docs/ralph.svg, docs/demo-report.png and docs/demo-report.json\n');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
