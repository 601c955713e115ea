import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitPusher } from '../../src/batch/pulls.js';
import { NEEDS_REVIEW_LABEL } from '../../src/contract/pull-messages.js';
import type { RepoRef } from '../../src/github/github-api.js';
import { type LandingDeps, landAsPull, pullBase, pullBranchOf } from '../../src/github/pull-landing.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import { MemoryGitHub } from '../support/memory-github.js';
import { PUSHED as HEAD, pullTask as task } from '../support/pull-task.js';

const repo: RepoRef = { owner: 'o', repo: 'r' };

/** The memory GitHub, with a push that keeps git's lease: it moves a branch only from the commit it is told. */
function deps(api: MemoryGitHub): LandingDeps {
  return {
    api,
    repo,
    login: 'ralph',
    push: async (from, to, lease) => {
      if ((api.branches.get(to) ?? null) !== lease) throw new Error(`stale info: ${to}`);
      api.pushed.push(`${from} -> ${to}`);
      api.branches.set(to, api.heads.get(from) ?? HEAD);
    },
  };
}

describe('landAsPull', () => {
  it('pushes a task that passed and opens a ready pull request, then comments on its issue', async () => {
    const api = new MemoryGitHub();
    const landed = await landAsPull(deps(api), task());
    expect(api.pushed).toEqual(['ralph/20261201-1522-a1b2c3/gh-7 -> ralph/gh-7']);
    expect(landed.action).toBe('opened');
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]).toMatchObject({ draft: false, base: 'main', head: 'ralph/gh-7' });
    expect(api.pulls[0]?.body).toContain('Added the parser and its tests.');
    expect(api.pulls[0]?.body).toContain('Closes #7');
    expect(api.labels.size).toBe(0);
    expect(api.issueComments.get(7)).toHaveLength(1);
    expect(api.issueComments.get(7)?.[0]).toContain('https://github.test/o/r/pull/100');
  });

  for (const outcome of ['needs-review', 'failed', 'budget-limited', 'blocked'] as const)
    it(`opens a ${outcome} task as a labelled draft, never ready`, async () => {
      const api = new MemoryGitHub();
      await landAsPull(deps(api), task({ outcome, why: 'the evaluator rejected it' }));
      expect(api.pulls).toHaveLength(1);
      expect(api.pulls[0]?.draft).toBe(true);
      expect(api.pulls[0]?.body).not.toContain('Closes #');
      expect(api.labels.get(100)).toEqual([NEEDS_REVIEW_LABEL]);
      expect(api.issueComments.get(7)?.[0]).toContain('the evaluator rejected it');
    });

  it('only comments on the issue when a task that failed left no branch', async () => {
    const api = new MemoryGitHub();
    const landed = await landAsPull(deps(api), task({ outcome: 'failed', why: 'no changes', branch: null }));
    expect(landed).toMatchObject({ pull: null, action: 'none' });
    expect(api.pulls).toHaveLength(0);
    expect(api.pushed).toHaveLength(0);
    expect(api.issueComments.get(7)?.[0]).toContain('No pull request was opened');
  });

  it('opens nothing twice and comments once when re-run, by a later batch too', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task());
    const later = task({ batchId: '20261202-0900-b2c3d4', branch: 'ralph/20261202-0900-b2c3d4/gh-7' });
    const again = await landAsPull(deps(api), later);
    expect(again).toMatchObject({ action: 'updated', commentUrl: null });
    expect(api.pulls).toHaveLength(1);
    expect(api.issueComments.get(7)).toHaveLength(1);
  });

  it('leaves a pull request a person closed as it is: nothing pushed, opened or said', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task());
    Object.assign(api.pulls[0] ?? {}, { state: 'closed' });
    const again = await landAsPull(deps(api), task());
    expect(again.action).toBe('left');
    expect(api.pulls).toHaveLength(1);
    expect(api.pushed).toHaveLength(1);
    expect(api.issueComments.get(7)).toHaveLength(1);
  });

  it('leaves a ready pull request as it is when a re-run did not pass: its reviewed work is not overwritten', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task());
    const again = await landAsPull(deps(api), task({ outcome: 'failed', why: 'verify failed' }));
    expect(again.action).toBe('left');
    expect(api.pushed).toHaveLength(1);
    expect(api.pulls[0]).toMatchObject({ draft: false });
    expect(api.labels.size).toBe(0);
  });

  it('marks its draft ready once a re-run passed, overwriting only the commit it pushed', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task({ outcome: 'needs-review', why: 'verify failed' }));
    expect(api.pulls[0]?.draft).toBe(true);
    const fixed = 'c'.repeat(40);
    api.heads.set('ralph/20261201-1522-a1b2c3/gh-7', fixed);
    await landAsPull(deps(api), task({ pushed: fixed }));
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]?.draft).toBe(false);
    expect(api.pulls[0]?.body).toContain('Closes #7');
    expect(api.pulls[0]?.body).toContain(`<!-- ralph-pushed: ${fixed} -->`);
    expect(api.branches.get('ralph/gh-7')).toBe(fixed);
    expect(api.issueComments.get(7)).toHaveLength(2);
  });

  it("refuses to push over a person's commits on its draft's branch, and changes nothing", async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task({ outcome: 'needs-review', why: 'verify failed' }));
    api.branches.set('ralph/gh-7', 'd'.repeat(40)); // a person pushed a fix
    await expect(landAsPull(deps(api), task())).rejects.toThrow('stale info');
    expect(api.branches.get('ralph/gh-7')).toBe('d'.repeat(40));
    expect(api.pulls[0]?.draft).toBe(true);
    expect(api.issueComments.get(7)).toHaveLength(1);
  });

  it('does not take a pull request of the same branch without its marker for its own', async () => {
    const api = new MemoryGitHub();
    await api.openPull(repo, {
      head: 'ralph/gh-7',
      base: 'main',
      title: 'x',
      body: 'a person',
      draft: false,
    });
    api.branches.set('ralph/gh-7', 'd'.repeat(40));
    await expect(landAsPull(deps(api), task({ outcome: 'failed', why: 'x' }))).rejects.toThrow('stale info');
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]?.body).toBe('a person');
  });

  it("comments though another's comment on the issue carries ralph's marker", async () => {
    const api = new MemoryGitHub();
    await api.comment(repo, 7, '<!-- ralph-issue: ralph/gh-7 passed -->');
    api.commentAuthors.set(7, ['mallory']);
    const landed = await landAsPull(deps(api), task());
    expect(landed.commentUrl).not.toBeNull();
    expect(api.issueComments.get(7)).toHaveLength(2);
  });
});

describe('pullBranchOf', () => {
  it("names an issue's task by the issue, and a tasks file's by its id and objective", () => {
    expect(pullBranchOf('gh-7', 'Parse the config\nand more')).toBe('ralph/gh-7');
    expect(pullBranchOf('gh-7', 'edited later')).toBe('ralph/gh-7');
    expect(pullBranchOf('task-1', 'write a')).toMatch(/^ralph\/task-1-[0-9a-f]{8}$/);
    expect(pullBranchOf('task-1', 'write a')).toBe(pullBranchOf('task-1', 'write a'));
    expect(pullBranchOf('task-1', 'write b')).not.toBe(pullBranchOf('task-1', 'write a'));
  });
});

describe('pullBase', () => {
  const pulled = new Map([['a', 'ralph/b/a']]);
  it('stacks a task on the branch of the task it comes after', () => {
    expect(pullBase(['a'], pulled, 'main', true)).toBe('ralph/b/a');
  });
  it('goes into the target when not stacked, or when what it comes after has no pull request', () => {
    expect(pullBase(['a'], pulled, 'main', false)).toBe('main');
    expect(pullBase(['z'], pulled, 'main', true)).toBe('main');
    expect(pullBase([], pulled, 'main', true)).toBe('main');
  });
  it('opens a stacked task against its base', async () => {
    const api = new MemoryGitHub();
    await landAsPull(
      deps(api),
      task({ taskId: 'b', branch: 'ralph/b/b', base: pullBase(['a'], pulled, 'main', true) }),
    );
    expect(api.pulls[0]?.base).toBe('ralph/b/a');
  });
});

describe('gitPusher', () => {
  it('pushes the branch to a bare repository given as the remote, under its name on GitHub', async () => {
    const local = tempRepo();
    gitIn(local, 'checkout', '--quiet', '-b', 'ralph/b/t');
    writeFileSync(join(local, 'change.txt'), 'x\n');
    gitIn(local, 'add', '--all');
    gitIn(local, 'commit', '--quiet', '-m', 'change');
    const bare = tempFolder('ralph-bare-');
    gitIn(bare, 'init', '--quiet', '--bare');
    await gitPusher(local, bare)('ralph/b/t', 'ralph/t', null);
    expect(gitIn(bare, 'rev-parse', 'refs/heads/ralph/t')).toBe(gitIn(local, 'rev-parse', 'HEAD'));
  });

  it('overwrites only the commit it is leased, and creates no branch that is there already', async () => {
    const local = tempRepo();
    const bare = tempFolder('ralph-bare-');
    gitIn(bare, 'init', '--quiet', '--bare');
    const commitOn = (branch: string, file: string) => {
      gitIn(local, 'checkout', '--quiet', '-B', branch, 'main');
      writeFileSync(join(local, file), `${file}\n`);
      gitIn(local, 'add', '--all');
      gitIn(local, 'commit', '--quiet', '-m', file);
      return gitIn(local, 'rev-parse', 'HEAD');
    };
    const first = commitOn('ralph/b1/t', 'one.txt');
    const push = gitPusher(local, bare);
    await push('ralph/b1/t', 'ralph/t', null);
    // A later batch's work, not built on the first: not pushed where a branch is and no lease is given, nor with a
    // lease on another commit; replaced, leased on the commit that is there.
    const second = commitOn('ralph/b2/t', 'two.txt');
    await expect(push('ralph/b2/t', 'ralph/t', null)).rejects.toThrow();
    await expect(push('ralph/b2/t', 'ralph/t', 'f'.repeat(40))).rejects.toThrow();
    expect(gitIn(bare, 'rev-parse', 'refs/heads/ralph/t')).toBe(first);
    await push('ralph/b2/t', 'ralph/t', first);
    expect(gitIn(bare, 'rev-parse', 'refs/heads/ralph/t')).toBe(second);
  });
});
