import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintWorkspace, type IgnoredFiles } from '../../src/workspace/workspace-fingerprint.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ralph-fingerprint-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const fingerprint = (
  cwd = root,
  extra: { maxFiles?: number; maxBytes?: number; ignore?: IgnoredFiles } = {},
) => fingerprintWorkspace(cwd, { signal: new AbortController().signal, ...extra });

async function files(tree: Record<string, string>, base = root): Promise<void> {
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(join(base, path, '..'), { recursive: true });
    await writeFile(join(base, path), content);
  }
}

function git(...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd: root, encoding: 'utf8' },
  );
}

const HEX = /^[0-9a-f]{64}$/;

describe('the fingerprint of a folder that is not a repository covers every file but .git and node_modules', () => {
  beforeEach(async () => {
    await files({ 'a.txt': 'one', 'src/b.ts': 'two', 'src/deep/c.md': 'three' });
  });

  it('is the same for the same tree', async () => {
    const first = await fingerprint();
    expect(first).toMatch(HEX);
    expect(await fingerprint()).toBe(first);
  });

  it('changes when a file is edited, added, removed or renamed', async () => {
    const seen = new Set([await fingerprint()]);
    await writeFile(join(root, 'src/b.ts'), 'TWO');
    seen.add(await fingerprint());
    await files({ 'src/new.ts': '' });
    seen.add(await fingerprint());
    await unlink(join(root, 'a.txt'));
    seen.add(await fingerprint());
    await rename(join(root, 'src/deep/c.md'), join(root, 'src/deep/d.md'));
    seen.add(await fingerprint());
    await mkdir(join(root, 'empty'));
    seen.add(await fingerprint());
    expect(seen.size).toBe(6);
  });

  it('does not change with what happens inside node_modules or .git, at any depth', async () => {
    const before = await fingerprint();
    await files({ 'node_modules/x/index.js': 'x', '.git/HEAD': 'ref', 'src/node_modules/y.js': 'y' });
    expect(await fingerprint()).toBe(before);
    await files({ 'node_modules/x/index.js': 'changed', '.git/HEAD': 'other' });
    expect(await fingerprint()).toBe(before);
  });

  it('sees a symlink by its target, never following it', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'ralph-fingerprint-outside-'));
    try {
      await files({ 'big.txt': 'outside' }, outside);
      await symlink(outside, join(root, 'link'));
      const linked = await fingerprint();
      await writeFile(join(outside, 'big.txt'), 'changed outside');
      expect(await fingerprint()).toBe(linked);
      await unlink(join(root, 'link'));
      await symlink(join(outside, 'big.txt'), join(root, 'link'));
      expect(await fingerprint()).not.toBe(linked);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('past its bounds it still sees a file whose size changes, by size and mtime', async () => {
    const bounded = { maxFiles: 1 };
    const before = await fingerprint(root, bounded);
    await writeFile(join(root, 'src/deep/c.md'), 'three, longer');
    expect(await fingerprint(root, bounded)).not.toBe(before);
    const byBytes = await fingerprint(root, { maxBytes: 0 });
    await writeFile(join(root, 'a.txt'), 'one, longer');
    expect(await fingerprint(root, { maxBytes: 0 })).not.toBe(byBytes);
  });

  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(fingerprintWorkspace(root, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('rejects with the reason when aborted once under way', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled mid-way');
    const running = fingerprintWorkspace(root, { signal: controller.signal });
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });
});

describe('the fingerprint of a git work tree follows HEAD, the status and the diff', () => {
  beforeEach(async () => {
    git('init', '-q', '-b', 'main');
    await files({ 'a.txt': 'one', 'src/b.ts': 'two', '.gitignore': 'ignored/\n' });
    git('add', '.');
    git('commit', '-q', '-m', 'first');
  });

  it('is the same for the same state', async () => {
    const first = await fingerprint();
    expect(first).toMatch(HEX);
    expect(await fingerprint()).toBe(first);
  });

  it('changes with an uncommitted edit, and again with a further edit of the same file', async () => {
    const clean = await fingerprint();
    await writeFile(join(root, 'a.txt'), 'edited');
    const edited = await fingerprint();
    expect(edited).not.toBe(clean);
    await writeFile(join(root, 'a.txt'), 'edited again');
    expect(await fingerprint()).not.toBe(edited);
  });

  it('sees an untracked file, and an edit of it', async () => {
    const clean = await fingerprint();
    await files({ 'src/new/untracked.ts': 'draft' });
    const added = await fingerprint();
    expect(added).not.toBe(clean);
    await writeFile(join(root, 'src/new/untracked.ts'), 'draft 2');
    expect(await fingerprint()).not.toBe(added);
  });

  it('changes with a committed change though the tree is clean again', async () => {
    const before = await fingerprint();
    await writeFile(join(root, 'a.txt'), 'committed');
    git('commit', '-q', '-am', 'second');
    expect(git('status', '--porcelain')).toBe('');
    expect(await fingerprint()).not.toBe(before);
  });

  it('changes with a staged edit, a removal and a rename', async () => {
    const seen = new Set([await fingerprint()]);
    await writeFile(join(root, 'src/b.ts'), 'staged');
    git('add', 'src/b.ts');
    seen.add(await fingerprint());
    git('mv', 'a.txt', 'renamed.txt');
    seen.add(await fingerprint());
    await unlink(join(root, 'src/b.ts'));
    seen.add(await fingerprint());
    expect(seen.size).toBe(4);
  });

  it('ignores what .gitignore ignores', async () => {
    const before = await fingerprint();
    await files({ 'ignored/cache.bin': 'x' });
    expect(await fingerprint()).toBe(before);
  });

  it('rejects with the reason when aborted while git runs', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled during git');
    const running = fingerprintWorkspace(root, { signal: controller.signal });
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });

  it('works in a repository with no commit yet', async () => {
    await rm(join(root, '.git'), { recursive: true, force: true });
    git('init', '-q');
    const empty = await fingerprint();
    await writeFile(join(root, 'a.txt'), 'changed');
    expect(await fingerprint()).not.toBe(empty);
    git('add', '.');
    expect(await fingerprint()).not.toBe(empty);
  });

  it('from a subfolder, sees the untracked files there', async () => {
    const sub = join(root, 'src');
    const before = await fingerprint(sub);
    await files({ 'src/fresh.ts': 'new' });
    const added = await fingerprint(sub);
    expect(added).not.toBe(before);
    await writeFile(join(root, 'src/fresh.ts'), 'newer');
    expect(await fingerprint(sub)).not.toBe(added);
  });
});

// What ralph itself writes while a run goes (its recording and the rotated copies ralph resume keeps, its stdout and
// stderr redirected into the workspace) is not the agents' work: counted, it would change the workspace every round.
describe.each([
  ['a folder that is not a repository', () => {}],
  ['a git work tree', () => git('init', '-q', '-b', 'main')],
])("the fingerprint of %s leaves out ralph's own output", (_, setUp) => {
  beforeEach(async () => {
    setUp();
    await files({ 'a.txt': 'one', 'run.jsonl': '{"type":"@ralph.recording"}\n', 'ralph.log': '' });
  });

  /** The recording by its path; the log, as a redirected stdout is known, by its device and inode only. */
  const own = async (): Promise<IgnoredFiles> => {
    const log = await stat(join(root, 'ralph.log'));
    return { paths: [join(root, 'run.jsonl')], identities: [{ dev: log.dev, ino: log.ino }] };
  };

  it('does not change as the recording and the log grow, or as a rotated copy of the recording appears', async () => {
    const ignore = await own();
    const before = await fingerprint(root, { ignore });
    await appendFile(join(root, 'run.jsonl'), '{"t":1}\n');
    await appendFile(join(root, 'ralph.log'), 'ralph: round 1/20 started\n');
    await files({ 'run.jsonl.1': 'the recording resumed from' });
    expect(await fingerprint(root, { ignore })).toBe(before);
  });

  it("still sees the agents' work beside them, and sees those files when they are not ralph's", async () => {
    const ignore = await own();
    const before = await fingerprint(root, { ignore });
    await writeFile(join(root, 'a.txt'), 'edited');
    expect(await fingerprint(root, { ignore })).not.toBe(before);
    const plain = await fingerprint();
    await appendFile(join(root, 'ralph.log'), 'more\n');
    expect(await fingerprint()).not.toBe(plain);
    await files({ 'run.jsonl.2': 'another' });
    await files({ 'run.jsonl.old': 'not a rotated copy' });
    const withOld = await fingerprint(root, { ignore });
    await writeFile(join(root, 'run.jsonl.old'), 'edited');
    expect(await fingerprint(root, { ignore })).not.toBe(withOld);
  });
});
