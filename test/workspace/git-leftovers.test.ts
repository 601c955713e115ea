import { describe, expect, test } from 'vitest';
import { commitsNotOn, userBranchHolding } from '../../src/workspace/git-leftovers.js';
import { commitFiles, gitIn, tempRepo } from '../support/git-repo.js';

const LINES = '1\n2\n3\n4\n5\n6\n';

/**
 * A repository whose branch `task` changes line 2 of f.txt, and whose target `target` changed line 4 before taking
 * task's commit as a rebase would (a copy, its diff's context changed: an equal patch git cherry does not see).
 */
function rebasedTask() {
  const repo = tempRepo({ 'f.txt': LINES });
  gitIn(repo, 'branch', 'task');
  gitIn(repo, 'branch', 'target');
  gitIn(repo, 'switch', '--quiet', 'task');
  commitFiles(repo, { 'f.txt': LINES.replace('2\n', 'two\n') }, 'task: line 2');
  gitIn(repo, 'switch', '--quiet', 'target');
  commitFiles(repo, { 'f.txt': LINES.replace('4\n', 'four\n') }, 'someone: line 4');
  gitIn(repo, 'cherry-pick', 'task');
  gitIn(repo, 'switch', '--quiet', 'main');
  return repo;
}

describe("what of a batch's branches is on a target", () => {
  test('a branch landed as a rebased copy is on the target, even when git cherry does not match its patch', async () => {
    const repo = rebasedTask();
    expect(gitIn(repo, 'cherry', 'target', 'task')).toMatch(/^\+ /);
    expect(await commitsNotOn(repo, 'task', 'target')).toBe(0);
  });

  test('a branch with work the target lacks, or that the target reverted, is not', async () => {
    const repo = rebasedTask();
    gitIn(repo, 'switch', '--quiet', 'task');
    commitFiles(repo, { 'g.txt': 'more\n' }, 'task: g.txt');
    commitFiles(repo, { 'h.txt': 'more\n' }, 'task: h.txt');
    gitIn(repo, 'switch', '--quiet', 'main');
    expect(await commitsNotOn(repo, 'task', 'target')).toBe(2);

    const reverted = rebasedTask();
    gitIn(reverted, 'switch', '--quiet', 'target');
    gitIn(reverted, 'revert', '--no-edit', 'HEAD');
    gitIn(reverted, 'switch', '--quiet', 'main');
    expect(await commitsNotOn(reverted, 'task', 'target')).toBe(1);
  });

  test("a session branch is held by a branch of the user's it was merged or squashed into, never by a ralph/ one", async () => {
    const repo = tempRepo({ 'f.txt': LINES });
    gitIn(repo, 'switch', '--quiet', '-c', 'ralph/batch-x');
    commitFiles(repo, { 'a.txt': 'a\n' }, 'a');
    const head = commitFiles(repo, { 'b.txt': 'b\n' }, 'b');
    gitIn(repo, 'branch', 'ralph/elsewhere');
    gitIn(repo, 'switch', '--quiet', 'main');
    expect(await userBranchHolding(repo, head)).toBeNull();
    gitIn(repo, 'merge', '--quiet', '--squash', 'ralph/batch-x');
    gitIn(repo, 'commit', '--quiet', '-m', 'squashed');
    expect(await userBranchHolding(repo, head)).toBe('main');
    gitIn(repo, 'branch', '--quiet', 'merged', 'ralph/batch-x');
    expect(await userBranchHolding(repo, head)).toBe('merged');
  });
});
