import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killLiveGroups } from '../../src/process/live-groups.js';
import { startInGroup } from '../../src/process/start-in-group.js';
import { agentCommand, cleanEnv, isRunning, until, useScratch } from '../support/processes.js';

const s = useScratch();

const options = (extra: Partial<Parameters<typeof startInGroup>[1]> = {}) => ({
  cwd: s.workspace,
  env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }),
  maxOutputBytes: 1024,
  graceMs: 200,
  ...extra,
});

const node = (program: string): string[] => [process.execPath, '-e', program];

describe('a process run in a group of its own', () => {
  it('gets its input on stdin, and its exit status and the tails of both streams are kept', async () => {
    const child = await startInGroup(
      node(
        "let t=''; process.stdin.on('data', (c) => t += c).on('end', () => { console.log(t.toUpperCase()); console.error('x'.repeat(5000) + 'END'); process.exit(4); })",
      ),
      options({ input: 'hello $HOME; `ls`' }),
    );
    const exit = await child.exited;
    expect(exit).toMatchObject({ code: 4, signal: null, groupGone: true });
    expect(exit.stdout.text()).toBe('HELLO $HOME; `LS`\n');
    expect(exit.stderr.text()).toHaveLength(1024);
    expect(exit.stderr.text().endsWith('END\n')).toBe(true);
  });

  it('rejects with the spawn error when the program cannot start', async () => {
    await expect(startInGroup(['ralph-no-such-program'], options())).rejects.toThrow(
      'spawn ralph-no-such-program ENOENT',
    );
  });

  it('settles after the grace even when a process that left the group holds its pipes', async () => {
    // The grandchild starts a session of its own (detached) with the child's stdout: no group signal reaches it.
    const child = await startInGroup(
      node(
        "const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }); require('node:fs').appendFileSync(process.env.FIXTURE_PID_LOG, g.pid + '\\n'); g.unref();",
      ),
      options(),
    );
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    const [escaped] = (await s.pids()) as [number];
    // Not ours to kill: it left the round's group, so only the pipes were cut.
    expect(isRunning(escaped)).toBe(true);
    process.kill(escaped, 'SIGKILL');
    await until(() => !isRunning(escaped), 'the escaped grandchild to die');
  });

  it('a stop is SIGTERM to the whole group, then SIGKILL after the grace', async () => {
    const signals = join(s.logs, 'signals');
    const child = await startInGroup(
      agentCommand('ignore-sigterm.mjs'),
      options({ env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog, FIXTURE_SIGNAL_LOG: signals }) }),
    );
    await until(async () => (await s.pids()).length === 1, 'the SIGTERM handler to be in place');
    child.stop();
    const exit = await child.exited;
    expect(exit).toMatchObject({ code: null, signal: 'SIGKILL', groupGone: true });
    expect(await readFile(signals, 'utf8')).toBe('SIGTERM\n');
  });

  it('killLiveGroups (the exit hook, and a CLI forced exit) SIGKILLs every group still running', async () => {
    const hang = node('setInterval(() => {}, 1e9)');
    const first = await startInGroup(hang, options({ graceMs: 600_000 }));
    const second = await startInGroup(hang, options({ graceMs: 600_000 }));
    killLiveGroups();
    const exits = await Promise.all([first.exited, second.exited]);
    expect(exits.map((exit) => exit.signal)).toEqual(['SIGKILL', 'SIGKILL']);
  });
});
