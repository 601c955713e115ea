import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { notification } from '../../src/notify/notification.js';
import { createNotifier } from '../../src/notify/notifier.js';
import { runNotifyCommand } from '../../src/notify/notify-command.js';
import { isRunning, type Scratch, scratch } from '../support/processes.js';

const scratches: Scratch[] = [];
afterEach(async () => {
  await Promise.all(scratches.splice(0).map((made) => made.cleanup()));
});

/** A node script in a scratch folder, and the folder. */
async function script(source: string): Promise<{ argv: string[]; dir: string }> {
  const made = await scratch();
  scratches.push(made);
  const file = join(made.logs, 'notify.mjs');
  await writeFile(file, source);
  return { argv: [process.execPath, file], dir: made.logs };
}

const note = notification({
  event: 'run.ended',
  runId: 'r1',
  status: 'failed',
  text: 'Ralph workflow failed: x',
});

describe('--notify-command runs a program with the notification on stdin', () => {
  it('the JSON arrives on its stdin, one line; exit 0 is delivered', async () => {
    const { argv, dir } = await script(
      "import { writeFileSync } from 'node:fs'; let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => writeFileSync(process.argv[2], s));",
    );
    const out = join(dir, 'got.json');
    const warnings: string[] = [];
    const notifier = createNotifier(
      { urls: [], commands: [[...argv, out]] },
      { warn: (l) => warnings.push(l) },
    );

    notifier.send(note);
    await notifier.close();

    expect(readFileSync(out, 'utf8')).toBe(`${JSON.stringify(note)}\n`);
    expect(warnings).toEqual([]);
  });

  it('a failing command is one line: its exit code and the first line it wrote on stderr', async () => {
    const { argv } = await script(
      "process.stderr.write('mail: no route to host\\nmore\\n'); process.exit(3);",
    );
    const warnings: string[] = [];
    const notifier = createNotifier({ urls: [], commands: [argv] }, { warn: (l) => warnings.push(l) });

    notifier.send(note);
    await notifier.close();

    expect(warnings).toEqual([
      `ralph: notification run.ended to command ${process.execPath} not delivered: exited 3: mail: no route to host`,
    ]);
  });

  it('a command that never ends is stopped at its timeout, its whole process group with it', async () => {
    const { argv, dir } = await script(
      "import { spawn } from 'node:child_process'; import { writeFileSync } from 'node:fs';" +
        "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });" +
        'writeFileSync(process.argv[2], String(g.pid)); setInterval(() => {}, 1000);',
    );
    const pidFile = join(dir, 'grandchild');
    const problem = await runNotifyCommand([...argv, pidFile], '{}', 5_000, new AbortController().signal);

    expect(problem).toBe('still running after 5000 ms; stopped');
    expect(existsSync(pidFile)).toBe(true);
    expect(isRunning(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('a program that does not exist is a line, not a throw', async () => {
    const problem = await runNotifyCommand(
      ['/nonexistent/notify'],
      '{}',
      1_000,
      new AbortController().signal,
    );
    expect(problem).toMatch(/^could not start: .*ENOENT/);
  });
});
