import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWorkspaceCommand, type WorkspaceCommandOptions } from '../../src/workspace/workspace-command.js';
import {
  resolveInWorkspace,
  WorkspaceEscapeError,
  workspaceRoot,
} from '../../src/workspace/workspace-path.js';
import { isGone, pidsWrittenTo } from './ai-sdk-process.js';

let root = '';
let outside = '';

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-ws-')));
  outside = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-ws-outside-')));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('the workspace tools stay in the workspace', () => {
  it('resolves relative paths, absolute paths inside, and new files in new folders', async () => {
    expect(await resolveInWorkspace(root, 'a/b/c.txt')).toBe(path.join(root, 'a/b/c.txt'));
    expect(await resolveInWorkspace(root, path.join(root, 'x.txt'))).toBe(path.join(root, 'x.txt'));
    expect(await resolveInWorkspace(root, 'a/../b.txt')).toBe(path.join(root, 'b.txt'));
    expect(await resolveInWorkspace(root, '.')).toBe(root);
  });

  it('refuses "..", absolute paths outside, symbolic links out and dangling links', async () => {
    await symlink(outside, path.join(root, 'out'));
    await symlink(path.join(outside, 'not-yet'), path.join(root, 'dangling'));
    await mkdir(path.join(root, 'inner'));
    await symlink(path.join(root, 'inner'), path.join(root, 'in'));

    for (const requested of [
      '..',
      '../x',
      'a/../../x',
      outside,
      '/etc/passwd',
      'out/x',
      'out',
      'dangling',
      'a\0b',
    ]) {
      await expect(resolveInWorkspace(root, requested), requested).rejects.toBeInstanceOf(
        WorkspaceEscapeError,
      );
    }
    // A link that stays inside is followed.
    expect(await resolveInWorkspace(root, 'in/file.txt')).toBe(path.join(root, 'inner', 'file.txt'));
  });

  it('does not take a sibling folder whose name starts with the workspace name for the workspace', async () => {
    const sibling = `${root}-sibling`;
    await mkdir(sibling);
    try {
      await expect(resolveInWorkspace(root, sibling)).rejects.toBeInstanceOf(WorkspaceEscapeError);
    } finally {
      await rm(sibling, { recursive: true, force: true });
    }
  });

  it('takes the workspace as its real path and refuses a folder that does not exist', async () => {
    await symlink(root, path.join(outside, 'alias'));
    expect(await workspaceRoot(path.join(outside, 'alias'))).toBe(root);
    await expect(workspaceRoot(path.join(root, 'missing'))).rejects.toThrow();
  });
});

describe('workspace commands', () => {
  const options = (): WorkspaceCommandOptions => ({
    cwd: root,
    timeoutMs: 60_000,
    killGraceMs: 200,
    maxOutputBytes: 1024,
  });

  it('run an argv without a shell, in the workspace, and report the exit code and both streams', async () => {
    const result = await runWorkspaceCommand(
      [
        process.execPath,
        '-e',
        'console.log(process.cwd()); console.log(process.argv[1]); console.error("warned"); process.exit(3)',
        '$HOME && echo *',
      ],
      options(),
    );
    expect(result).toEqual({
      exitCode: 3,
      signal: null,
      timedOut: false,
      aborted: false,
      stdout: `${root}\n$HOME && echo *\n`,
      stderr: 'warned\n',
    });
  });

  it('keep only the tail of a flood of output', async () => {
    const result = await runWorkspaceCommand(
      [process.execPath, '-e', 'process.stdout.write("x".repeat(5_000_000) + "THE END")'],
      options(),
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.endsWith('THE END')).toBe(true);
    expect(result.stdout).toMatch(/^\[… \d+ earlier bytes dropped\]\n/);
    expect(result.stdout.length).toBeLessThan(1024 + 64);
  });

  it('reject a program that cannot start', async () => {
    await expect(runWorkspaceCommand(['no-such-program-ralph'], options())).rejects.toThrow(
      'could not start "no-such-program-ralph"',
    );
  });

  it('leave nothing running: what a command started in the background is killed when it exits', async () => {
    const program = [
      "const { spawn } = require('node:child_process');",
      "const fs = require('node:fs');",
      "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
      "fs.writeFileSync('pids.json', JSON.stringify([g.pid]) + '\\n');",
      'g.unref();',
    ].join('\n');
    const result = await runWorkspaceCommand([process.execPath, '-e', program], options());
    expect(result.exitCode).toBe(0);
    const [grandchild] = await pidsWrittenTo(path.join(root, 'pids.json'));
    expect(isGone(grandchild!)).toBe(true);
  });

  it('stop on abort and say so', async () => {
    const controller = new AbortController();
    const running = runWorkspaceCommand(
      [
        process.execPath,
        '-e',
        "require('node:fs').writeFileSync('pids.json', '[' + process.pid + ']\\n'); setInterval(() => {}, 1000)",
      ],
      { ...options(), signal: controller.signal },
    );
    const [pid] = await pidsWrittenTo(path.join(root, 'pids.json'));
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGTERM' });
    expect(isGone(pid!)).toBe(true);
  });
});
