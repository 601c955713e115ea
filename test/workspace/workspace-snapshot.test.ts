import { appendFile, chmod, mkdir, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeChangedFiles } from '../../src/contract/changed-files.js';
import { changedFiles } from '../../src/workspace/workspace-changes.js';
import { fingerprintWorkspace, type IgnoredFiles } from '../../src/workspace/workspace-fingerprint.js';
import {
  GIT_HEAD_ENTRY,
  GIT_INDEX_ENTRY,
  snapshotWorkspace,
} from '../../src/workspace/workspace-snapshot.js';
import { commitFiles, gitIn, tempFolder } from '../support/git-repo.js';

let root: string;

beforeEach(() => {
  root = tempFolder('ralph-snapshot-');
});

const snapshot = (cwd = root, extra: { maxFiles?: number; maxBytes?: number; ignore?: IgnoredFiles } = {}) =>
  snapshotWorkspace(cwd, { signal: new AbortController().signal, ...extra });

const git = (...args: string[]) => gitIn(root, ...args);

/** Writes `tree` (relative path to content) under `base`, making the folders it needs. */
const write = (tree: Record<string, string>, base = root) =>
  Promise.all(
    Object.entries(tree).map(async ([path, content]) => {
      await mkdir(dirname(join(base, path)), { recursive: true });
      await writeFile(join(base, path), content);
    }),
  );

/** Makes `root` a repository on branch main with `tree` as its first commit. */
async function repoWith(tree: Record<string, string>): Promise<void> {
  git('init', '-q', '-b', 'main');
  await write(tree);
  commitFiles(root, {}, 'first');
}

/** That a snapshot aborted with `reason`, before it starts or once under way, rejects with that reason. */
async function expectAbortRejects(reason: Error, underWay: boolean): Promise<void> {
  const controller = new AbortController();
  if (!underWay) controller.abort(reason);
  const running = snapshotWorkspace(root, { signal: controller.signal });
  controller.abort(reason);
  await expect(running).rejects.toBe(reason);
}

/** What changed in the workspace at `cwd` while `act` ran, as `changedFiles` words it. */
async function changesDuring(act: () => Promise<unknown> | unknown, cwd = root, ignore?: IgnoredFiles) {
  const before = await snapshot(cwd, { ignore });
  await act();
  return changedFiles(before, await snapshot(cwd, { ignore }));
}

describe('a snapshot of a folder that is not a repository names each changed path', () => {
  beforeEach(async () => {
    await write({ 'a.txt': 'one', 'src/b.ts': 'two', 'src/deep/c.md': 'three' });
  });

  it('keeps one digest per file and folder, by relative path with / separators', async () => {
    expect([...(await snapshot()).keys()]).toEqual([
      'a.txt',
      'src/',
      'src/b.ts',
      'src/deep/',
      'src/deep/c.md',
    ]);
  });

  it('finds nothing when nothing changed', async () => {
    expect(await changesDuring(() => {})).toEqual([]);
  });

  it('names an edit, an addition and a removal, sorted by path', async () => {
    const changes = await changesDuring(async () => {
      await writeFile(join(root, 'src/b.ts'), 'TWO');
      await write({ 'src/deep/new.ts': '', 'b.txt': 'added' });
      await unlink(join(root, 'a.txt'));
    });
    expect(changes).toEqual([
      'a.txt (removed)',
      'b.txt (added)',
      'src/b.ts (changed)',
      'src/deep/new.ts (added)',
    ]);
  });

  it('names a new folder as a folder, and a file made executable', async () => {
    const changes = await changesDuring(async () => {
      await mkdir(join(root, 'empty'));
      await chmod(join(root, 'a.txt'), 0o755);
    });
    expect(changes).toEqual(['a.txt (changed)', 'empty/ (added)']);
  });

  it('sees a symlink by its target, never following it', async () => {
    const outside = tempFolder('ralph-snapshot-outside-');
    await write({ 'big.txt': 'outside' }, outside);
    await symlink(outside, join(root, 'link'));
    expect(await changesDuring(() => writeFile(join(outside, 'big.txt'), 'changed outside'))).toEqual([]);
    const retargeted = await changesDuring(async () => {
      await unlink(join(root, 'link'));
      await symlink(join(outside, 'big.txt'), join(root, 'link'));
    });
    expect(retargeted).toEqual(['link (changed)']);
  });

  it('leaves out node_modules and .git at any depth', async () => {
    const changes = await changesDuring(() =>
      write({ 'node_modules/x/index.js': 'x', '.git/HEAD': 'ref', 'src/node_modules/y.js': 'y' }),
    );
    expect(changes).toEqual([]);
  });

  it('past its bounds still names a file whose size changes, by size and mtime', async () => {
    const before = await snapshot(root, { maxFiles: 1 });
    expect(before.get('src/deep/c.md')).toMatch(/^unread 5 /);
    await writeFile(join(root, 'src/deep/c.md'), 'three, longer');
    expect(changedFiles(before, await snapshot(root, { maxFiles: 1 }))).toEqual(['src/deep/c.md (changed)']);
    const byBytes = await snapshot(root, { maxBytes: 0 });
    await writeFile(join(root, 'a.txt'), 'one, longer');
    expect(changedFiles(byBytes, await snapshot(root, { maxBytes: 0 }))).toEqual(['a.txt (changed)']);
  });

  it('rejects with the reason when aborted, before or once under way', async () => {
    await expectAbortRejects(new Error('cancelled'), false);
    await expectAbortRejects(new Error('cancelled mid-way'), true);
  });
});

describe('a snapshot of a git work tree names changed files, and HEAD and the index as pseudo-entries', () => {
  beforeEach(() => repoWith({ 'a.txt': 'one', 'src/b.ts': 'two', '.gitignore': 'ignored/\n' }));

  it('holds HEAD, the index and the tracked files, and finds nothing when nothing changed', async () => {
    const taken = await snapshot();
    expect([...taken.keys()]).toEqual([GIT_HEAD_ENTRY, GIT_INDEX_ENTRY, '.gitignore', 'a.txt', 'src/b.ts']);
    expect(taken.get(GIT_HEAD_ENTRY)).toBe(git('rev-parse', 'HEAD').trim());
    expect(await changesDuring(() => {})).toEqual([]);
  });

  it('names an edit, an untracked file, a removal and a file made executable', async () => {
    const changes = await changesDuring(async () => {
      await writeFile(join(root, 'a.txt'), 'edited');
      await write({ 'src/new/untracked.ts': 'draft' });
      await unlink(join(root, 'src/b.ts'));
      await chmod(join(root, '.gitignore'), 0o755);
    });
    expect(describeChangedFiles(changes)).toBe(
      '.gitignore (changed), a.txt (changed), src/b.ts (removed), src/new/untracked.ts (added)',
    );
  });

  it('names a further edit of a file already edited', async () => {
    await writeFile(join(root, 'a.txt'), 'edited');
    expect(await changesDuring(() => writeFile(join(root, 'a.txt'), 'edited again'))).toEqual([
      'a.txt (changed)',
    ]);
  });

  it('names a symlink retargeted', async () => {
    await symlink('a.txt', join(root, 'link'));
    git('add', 'link');
    git('commit', '-q', '-m', 'link');
    const changes = await changesDuring(async () => {
      await unlink(join(root, 'link'));
      await symlink('src/b.ts', join(root, 'link'));
    });
    expect(changes).toEqual(['link (changed)']);
  });

  it('names HEAD when a commit moves it, though the tree looks the same', async () => {
    await writeFile(join(root, 'a.txt'), 'committed');
    git('add', 'a.txt');
    const changes = await changesDuring(() => git('commit', '-q', '-m', 'second'));
    expect(git('status', '--porcelain')).toBe('');
    expect(changes).toEqual([`${GIT_HEAD_ENTRY} (changed)`]);
  });

  it('names HEAD, and the files it changed, when a reset moves it back', async () => {
    await writeFile(join(root, 'a.txt'), 'second');
    git('commit', '-q', '-am', 'second');
    const changes = await changesDuring(() => git('reset', '-q', '--hard', 'HEAD~1'));
    expect(changes).toEqual([
      `${GIT_HEAD_ENTRY} (changed)`,
      `${GIT_INDEX_ENTRY} (changed)`,
      'a.txt (changed)',
    ]);
  });

  it('names the index and the file when an edit is staged', async () => {
    await writeFile(join(root, 'a.txt'), 'edited');
    expect(await changesDuring(() => git('add', 'a.txt'))).toEqual([
      `${GIT_INDEX_ENTRY} (changed)`,
      'a.txt (changed)',
    ]);
  });

  it('leaves out what .gitignore ignores', async () => {
    expect(await changesDuring(() => write({ 'ignored/cache.bin': 'x' }))).toEqual([]);
  });

  it('works in a repository with no commit yet', async () => {
    await rm(join(root, '.git'), { recursive: true, force: true });
    git('init', '-q');
    const empty = await snapshot();
    expect(empty.get(GIT_HEAD_ENTRY)).toBe('no HEAD');
    await writeFile(join(root, 'a.txt'), 'changed');
    expect(changedFiles(empty, await snapshot())).toEqual(['a.txt (changed)']);
  });

  it('from a subfolder, names paths relative to it', async () => {
    const sub = join(root, 'src');
    const changes = await changesDuring(async () => {
      await write({ 'src/fresh.ts': 'new', 'outside.txt': 'not below src' });
      await writeFile(join(root, 'src/b.ts'), 'edited');
    }, sub);
    expect(changes).toEqual(['b.ts (changed)', 'fresh.ts (added)']);
  });

  it('rejects with the reason when aborted while git runs', async () => {
    await expectAbortRejects(new Error('cancelled during git'), true);
  });
});

describe('a snapshot names a change wherever the fingerprint sees one', () => {
  /** Each step changes the workspace; after each, the fingerprint moved and the snapshot names what did. */
  const steps: [string, () => Promise<unknown> | unknown, string[]][] = [
    ['an edit', () => writeFile(join(root, 'a.txt'), 'edited'), ['a.txt (changed)']],
    ['a chmod of the edited file', () => chmod(join(root, 'a.txt'), 0o755), ['a.txt (changed)']],
    ['staging it', () => git('add', 'a.txt'), [`${GIT_INDEX_ENTRY} (changed)`, 'a.txt (changed)']],
    [
      'a rename',
      () => git('mv', 'src/b.ts', 'src/c.ts'),
      [`${GIT_INDEX_ENTRY} (changed)`, 'src/b.ts (removed)', 'src/c.ts (added)'],
    ],
    [
      'untracking a file',
      () => git('rm', '-q', '--cached', 'src/c.ts'),
      [`${GIT_INDEX_ENTRY} (changed)`, 'src/c.ts (changed)'],
    ],
    ['a commit', () => git('commit', '-q', '-m', 'second'), [`${GIT_HEAD_ENTRY} (changed)`]],
    [
      'a checkout of the first commit',
      () => git('checkout', '-q', 'HEAD~1'),
      [`${GIT_HEAD_ENTRY} (changed)`, `${GIT_INDEX_ENTRY} (changed)`, 'a.txt (changed)', 'src/b.ts (added)'],
    ],
  ];

  it('in a git work tree, step by step', async () => {
    await repoWith({ 'a.txt': 'one', 'src/b.ts': 'two' });
    const signal = new AbortController().signal;
    for (const [what, step, named] of steps) {
      const before = {
        fingerprint: await fingerprintWorkspace(root, { signal }),
        snapshot: await snapshot(),
      };
      await step();
      expect(await fingerprintWorkspace(root, { signal }), what).not.toBe(before.fingerprint);
      expect(changedFiles(before.snapshot, await snapshot()), what).toEqual(named);
    }
  });
});

describe.each([
  { where: 'a folder that is not a repository', repository: false },
  { where: 'a git work tree', repository: true },
])("a snapshot of $where leaves out ralph's own output", ({ repository }) => {
  beforeEach(async () => {
    if (repository) git('init', '-q', '-b', 'main');
    await write({ 'a.txt': 'one', 'run.jsonl': '{"type":"@ralph.recording"}\n', 'ralph.log': '' });
  });

  it('names no change as the recording and the log grow, but names the work beside them', async () => {
    const log = await stat(join(root, 'ralph.log'));
    const ignore = { paths: [join(root, 'run.jsonl')], identities: [{ dev: log.dev, ino: log.ino }] };
    const changes = await changesDuring(
      async () => {
        await appendFile(join(root, 'run.jsonl'), '{"t":1}\n');
        await appendFile(join(root, 'ralph.log'), 'ralph: round 1/20 started\n');
        await write({ 'run.jsonl.1': 'the recording resumed from' });
        await writeFile(join(root, 'a.txt'), 'edited');
      },
      root,
      ignore,
    );
    expect(changes).toEqual(['a.txt (changed)']);
  });
});

describe('describeChangedFiles words the changes for an error, within a bound', () => {
  const changes = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, '0')}.ts (changed)`);

  it('names them all when they are few', () => {
    expect(describeChangedFiles(['a.ts (changed)', 'b.txt (added)'])).toBe('a.ts (changed), b.txt (added)');
    expect(describeChangedFiles(changes.slice(0, 20))).toBe(changes.slice(0, 20).join(', '));
  });

  it('names the first 20 and counts the rest', () => {
    expect(describeChangedFiles(changes)).toBe(`${changes.slice(0, 20).join(', ')} and 5 more`);
    expect(describeChangedFiles(changes, 2)).toBe('f00.ts (changed), f01.ts (changed) and 23 more');
  });
});
