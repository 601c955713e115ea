import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Confinement,
  confinementOf,
  openWorkspaceFolder,
  readWorkspaceFile,
  writeWorkspaceFile,
} from '../../src/workspace/workspace-files.js';
import { WorkspaceEscapeError } from '../../src/workspace/workspace-path.js';

let root = '';
let outside = '';

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-files-')));
  outside = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-files-outside-')));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

it('names descriptors through /proc/self/fd on Linux', async () => {
  expect((await confinementOf(root)).procFd).toBe(process.platform === 'linux');
});

describe.each([
  ['through /proc/self/fd', true],
  ['by device and inode', false],
])('confined workspace files, checked %s', (_, procFd) => {
  const c = (): Confinement => ({ root, procFd });

  it('reads a file, at most maxBytes of it, saying how much is left', async () => {
    await writeFile(path.join(root, 'a.txt'), 'hello ralph');
    expect(await readWorkspaceFile(c(), 'a.txt', 100)).toBe('hello ralph');
    expect(await readWorkspaceFile(c(), 'a.txt', 5)).toBe(
      'hello\n[… file continues: 6 more bytes not shown]',
    );
  });

  it('writes a new file in new folders, and replaces a longer file whole', async () => {
    expect(await writeWorkspaceFile(c(), 'x/y/z.txt', 'new')).toBe(path.join(root, 'x/y/z.txt'));
    expect(await readFile(path.join(root, 'x/y/z.txt'), 'utf8')).toBe('new');
    await writeFile(path.join(root, 'long.txt'), 'a much longer text');
    await writeWorkspaceFile(c(), 'long.txt', 'short');
    expect(await readFile(path.join(root, 'long.txt'), 'utf8')).toBe('short');
  });

  it('follows a link that stays inside, and refuses one that leads out before touching anything', async () => {
    await mkdir(path.join(root, 'inner'));
    await symlink(path.join(root, 'inner'), path.join(root, 'in'));
    await symlink(outside, path.join(root, 'out'));
    await writeWorkspaceFile(c(), 'in/f.txt', 'inside');
    expect(await readWorkspaceFile(c(), 'inner/f.txt', 100)).toBe('inside');
    await expect(writeWorkspaceFile(c(), 'out/new/f.txt', 'x')).rejects.toBeInstanceOf(WorkspaceEscapeError);
    expect(existsSync(path.join(outside, 'new'))).toBe(false);
  });

  it('refuses a folder or a FIFO as a file, without hanging on the FIFO', async () => {
    await mkdir(path.join(root, 'dir'));
    expect(spawnSync('mkfifo', [path.join(root, 'pipe')]).status).toBe(0);
    await expect(readWorkspaceFile(c(), 'dir', 100)).rejects.toThrow('"dir" is not a regular file');
    await expect(readWorkspaceFile(c(), '.', 100)).rejects.toThrow('"." is a folder, not a file');
    await expect(readWorkspaceFile(c(), 'pipe', 100)).rejects.toThrow('"pipe" is not a regular file');
    await expect(writeWorkspaceFile(c(), 'pipe', 'x')).rejects.toThrow();
    await expect(writeWorkspaceFile(c(), 'dir', 'x')).rejects.toThrow();
  });

  it('says a missing file does not exist, by the name the child used', async () => {
    await expect(readWorkspaceFile(c(), 'gone/nothing.txt', 100)).rejects.toThrow(
      '"gone/nothing.txt" does not exist',
    );
  });

  it('lists a folder and opens its sub-folders through it', async () => {
    await mkdir(path.join(root, 'src', 'lib'), { recursive: true });
    await writeFile(path.join(root, 'src', 'lib', 'a.ts'), 'a');
    const top = await openWorkspaceFolder(c(), 'src');
    try {
      expect(top.path).toBe(path.join(root, 'src'));
      expect(top.entries.map((entry) => entry.name)).toEqual(['lib']);
      const lib = await top.open('lib');
      try {
        expect(lib.entries.map((entry) => entry.name)).toEqual(['a.ts']);
      } finally {
        await lib.close();
      }
    } finally {
      await top.close();
    }
  });
});
