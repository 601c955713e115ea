import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { commitLeftovers } from '../../src/workspace/git-commit.js';
import { fastForwardTarget, TargetMovedError } from '../../src/workspace/git-land.js';
import { rebaseOnto } from '../../src/workspace/git-rebase.js';
import {
  addDetachedWorktree,
  addWorktree,
  batchFolder,
  removeWorktree,
  worktreePaths,
} from '../../src/workspace/git-worktree.js';
import { commitFiles, gitIn, tempRepo } from '../support/git-repo.js';

describe('task worktrees', () => {
  test('live in the git folder, on their own branch; removing one leaves its branch and no stale entry', async () => {
    const repo = tempRepo();
    const folder = await batchFolder(repo, 'b1');
    expect(folder).toBe(
      join(gitIn(repo, 'rev-parse', '--path-format=absolute', '--git-common-dir'), 'ralph', 'batches', 'b1'),
    );
    const tree = join(folder, 't1');
    await addWorktree(repo, tree, 'ralph/b1/t1', 'main');
    expect(await worktreePaths(repo)).toContain(tree);
    expect(gitIn(tree, 'branch', '--show-current')).toBe('ralph/b1/t1');
    await removeWorktree(repo, tree);
    expect(existsSync(tree)).toBe(false);
    expect(await worktreePaths(repo)).not.toContain(tree);
    expect(gitIn(repo, 'branch', '--list', 'ralph/b1/t1')).toContain('ralph/b1/t1');
  });

  test('what an agent left uncommitted is committed with the message given; nothing left, no commit', async () => {
    const repo = tempRepo({ 'keep.txt': 'k\n', 'gone.txt': 'g\n' });
    const tree = join(await batchFolder(repo, 'b2'), 't1');
    await addWorktree(repo, tree, 'ralph/b2/t1', 'main');
    writeFileSync(join(tree, 'keep.txt'), 'changed\n');
    writeFileSync(join(tree, 'new.txt'), 'new\n');
    gitIn(tree, 'rm', '--quiet', 'gone.txt');
    const head = await commitLeftovers(tree, 'ralph batch b2: task t1 (run r-1)');
    expect(gitIn(tree, 'log', '-1', '--format=%s', head)).toBe('ralph batch b2: task t1 (run r-1)');
    expect(gitIn(tree, 'show', '--name-status', '--format=', head).split('\n').sort()).toEqual([
      'A\tnew.txt',
      'D\tgone.txt',
      'M\tkeep.txt',
    ]);
    expect(await commitLeftovers(tree, 'again')).toBe(head);
  });
});

describe('bringing a task onto the target', () => {
  test('a branch touching other files rebases onto the target head', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    gitIn(repo, 'branch', 'task', 'main');
    const folder = await batchFolder(repo, 'b3');
    await addWorktree(repo, join(folder, 'task'), 'task-branch', 'task');
    commitFiles(join(folder, 'task'), { 'b.txt': 'task\n' });
    const target = commitFiles(repo, { 'a.txt': 'target\n' });
    await addDetachedWorktree(repo, join(folder, '.merge'), 'task-branch');
    const outcome = await rebaseOnto(join(folder, '.merge'), target);
    expect(outcome.kind).toBe('rebased');
    if (outcome.kind !== 'rebased') return;
    expect(gitIn(repo, 'rev-parse', `${outcome.head}^`)).toBe(target);
    expect(gitIn(repo, 'show', `${outcome.head}:a.txt`)).toBe('target');
    expect(gitIn(repo, 'show', `${outcome.head}:b.txt`)).toBe('task');
  });

  test('the same lines changed on both sides are a conflict naming the file, the scratch tree left clean', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const folder = await batchFolder(repo, 'b4');
    await addWorktree(repo, join(folder, 't'), 'task-branch', 'main');
    const taskHead = commitFiles(join(folder, 't'), { 'a.txt': 'task\n' });
    const target = commitFiles(repo, { 'a.txt': 'target\n' });
    await addDetachedWorktree(repo, join(folder, '.merge'), 'task-branch');
    const outcome = await rebaseOnto(join(folder, '.merge'), target);
    expect(outcome).toMatchObject({ kind: 'conflict', files: ['a.txt'] });
    expect(gitIn(join(folder, '.merge'), 'rev-parse', 'HEAD')).toBe(taskHead);
    expect(gitIn(join(folder, '.merge'), 'status', '--porcelain')).toBe('');
  });

  test('the target moves only from the commit expected; a moved target is detected and left as it is', async () => {
    const repo = tempRepo();
    const start = gitIn(repo, 'rev-parse', 'HEAD');
    gitIn(repo, 'branch', 'target', start);
    const next = commitFiles(repo, { 'n.txt': 'n\n' });
    await fastForwardTarget(repo, 'target', next, start, 'land');
    expect(gitIn(repo, 'rev-parse', 'target')).toBe(next);
    await expect(fastForwardTarget(repo, 'target', start, start, 'land')).rejects.toThrow(TargetMovedError);
    expect(gitIn(repo, 'rev-parse', 'target')).toBe(next);
  });
});
