import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { CLI, ralph } from '../fixtures/cli-agents/harness.js';
import { tempFolder, tempRepo } from '../support/git-repo.js';
import { hasScript } from '../support/terminal.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
const CLEAR_LINE = '\r\x1b[2K';

/** `ralph batch` of two tasks that each say they spent $0.25, one at a time, in a new repository. */
function batchArgs(): string[] {
  const repo = tempRepo();
  const tasksFile = join(tempFolder('ralph-batch-tty-'), 'tasks.json');
  writeFileSync(
    tasksFile,
    JSON.stringify([
      { id: 'a', objective: 'write a.txt a\ncost 0.25' },
      { id: 'b', objective: 'write b.txt b\ncost 0.25' },
    ]),
  );
  return [
    'batch',
    tasksFile,
    '--agent-command',
    AGENT,
    '--agent-reports-cost',
    '--parallel',
    '1',
    '--cwd',
    repo,
  ];
}

/** Runs `ralph batch` under a pseudo-terminal; everything it drew there (stdout and stderr together). */
function inTerminal(env: NodeJS.ProcessEnv): { screen: string; code: number | null } {
  const { stdout, status } = spawnSync(
    'script',
    ['-qfec', quote([process.execPath, CLI, ...batchArgs()]), '/dev/null'],
    {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    },
  );
  return { screen: stdout, code: status };
}

describe.skipIf(!hasScript)('ralph batch in a terminal', () => {
  test('keeps a line per task event and redraws a live summary below them: counts by status and what was spent', () => {
    const { screen, code } = inTerminal({ TERM: 'xterm' });
    expect(code, screen).toBe(0);
    // Each event line first clears the summary, then the summary is drawn again below it.
    expect(screen).toContain(`${CLEAR_LINE}ralph batch: a: landed on `);
    expect(screen).toContain(`${CLEAR_LINE}ralph batch: 1 running · 1 waiting`);
    expect(screen).toContain(`${CLEAR_LINE}ralph batch: 0 running · 1 queued · 1 landed · $0.50`);
    expect(screen).toContain(`${CLEAR_LINE}ralph batch: 0 running · 2 landed · $0.50`);
    // The summary is cleared before the batch's own summary on stdout, which starts on a clean line.
    const summaryAt = screen.indexOf('a: landed\r\nb: landed\r\n');
    expect(summaryAt).toBeGreaterThan(0);
    expect(screen.slice(0, summaryAt).endsWith(CLEAR_LINE)).toBe(true);
  });

  test('draws no live line and no escape code under TERM=dumb', () => {
    const { screen, code } = inTerminal({ TERM: 'dumb' });
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('\x1b');
    expect(screen).toContain('ralph batch: b: landed on ');
    expect(screen).not.toMatch(/ralph batch: \d+ running/);
  });
});

test('ralph batch into a pipe writes plain lines: no live line, no escape code, no carriage return', async () => {
  const run = await ralph(batchArgs());
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.stderr).toContain('ralph batch: a: landed on ');
  expect(run.stderr).not.toContain('\x1b');
  expect(run.stderr).not.toContain('\r');
  expect(run.stderr).not.toMatch(/ralph batch: \d+ running/);
}, 60_000);
