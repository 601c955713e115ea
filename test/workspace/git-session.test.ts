import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { rollbackSession, SessionError, startSession } from '../../src/workspace/git-session.js';
import { commitFiles, gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

describe('a batch session', () => {
  test('is a branch ralph/batch-<id> at HEAD with a tag on that commit, the working tree untouched', async () => {
    const repo = tempRepo({ 'a.txt': 'a\n' });
    const head = gitIn(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'a.txt'), 'edited, not committed\n');
    writeFileSync(join(repo, 'new.txt'), 'untracked\n');
    const session = await startSession(repo, 'b1');
    expect(session).toMatchObject({ target: 'ralph/batch-b1', start: head, tag: 'ralph/batch-b1/start' });
    expect(session.dirty.sort()).toEqual(['a.txt', 'new.txt']);
    expect(gitIn(repo, 'rev-parse', 'ralph/batch-b1')).toBe(head);
    expect(gitIn(repo, 'rev-parse', 'ralph/batch-b1/start^{commit}')).toBe(head);
    expect(gitIn(repo, 'branch', '--show-current')).toBe('main');
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('edited, not committed\n');
    expect(gitIn(repo, 'status', '--porcelain')).toBe('M a.txt\n?? new.txt');
  });

  test('--into uses an existing branch that no worktree has checked out', async () => {
    const repo = tempRepo();
    gitIn(repo, 'branch', 'integration');
    const session = await startSession(repo, 'b2', 'integration');
    expect(session.target).toBe('integration');
    await expect(startSession(repo, 'b3', 'main')).rejects.toThrow(/checked out in a worktree/);
    await expect(startSession(repo, 'b4', 'nope')).rejects.toThrow(/--into nope: there is no such branch/);
  });

  test('outside a git repository it is refused', async () => {
    const folder = tempFolder('ralph-not-a-repo-');
    await expect(startSession(folder, 'b5')).rejects.toThrow(SessionError);
  });

  test('rollback moves the target back to the tagged start; an unknown batch is refused', async () => {
    const repo = tempRepo();
    const session = await startSession(repo, 'b6');
    gitIn(repo, 'worktree', 'add', '--quiet', join(repo, '.git', 'wt'), session.target);
    // A landing's head carries the batch's trailer: a rollback moves only a target the batch left as it was.
    const landed = commitFiles(join(repo, '.git', 'wt'), { 'x.txt': 'x\n' }, 'land x\n\nRalph-Task: b6/x');
    gitIn(repo, 'worktree', 'remove', join(repo, '.git', 'wt'));
    expect(await rollbackSession(repo, 'b6')).toEqual({
      target: session.target,
      from: landed,
      to: session.start,
    });
    expect(gitIn(repo, 'rev-parse', session.target)).toBe(session.start);
    await expect(rollbackSession(repo, 'nope')).rejects.toThrow(/there is no batch nope here/);
  });
});
