import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDS_REVIEW_LABEL, pullBody } from '../../src/contract/pull-messages.js';
import type { RepoRef } from '../../src/github/github-api.js';
import { landAsPull, type PullTask, pullBase } from '../../src/github/pull-landing.js';
import { gitPusher } from '../../src/hosts/cli/batch-pulls.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import { MemoryGitHub } from '../support/memory-github.js';

const repo: RepoRef = { owner: 'o', repo: 'r' };

function task(change: Partial<PullTask> = {}): PullTask {
  return {
    batchId: '20261201-1522-a1b2c3',
    taskId: 'gh-7',
    outcome: 'passed',
    why: null,
    report: 'Added the parser and its tests.',
    verify: { command: 'npm test', passed: true, output: '12 passed' },
    evaluator: { accepted: true, verdict: 'The parser does what the issue asks.' },
    rounds: 3,
    costUsd: 0.42,
    reportUrl: 'https://ci.test/batch/report.html',
    issue: 7,
    branch: 'ralph/20261201-1522-a1b2c3/gh-7',
    base: 'main',
    title: 'Parse the config',
    ...change,
  };
}

function deps(api: MemoryGitHub) {
  return { api, repo, push: async (branch: string) => void api.pushed.push(branch) };
}

describe('pullBody', () => {
  it('carries the report, verify, verdict, rounds, cost, link, Closes #N and the marker for a task that passed', () => {
    const body = pullBody(task());
    for (const part of [
      'Added the parser and its tests.',
      '`npm test` passed',
      '12 passed',
      'The parser does what the issue asks.',
      'Rounds: 3 · cost: $0.42',
      'https://ci.test/batch/report.html',
      'Closes #7',
      '<!-- ralph-task: 20261201-1522-a1b2c3/gh-7 -->',
    ])
      expect(body).toContain(part);
  });

  it('says what went wrong and closes nothing for a task that did not pass', () => {
    const body = pullBody(
      task({
        outcome: 'failed',
        why: 'verify failed',
        verify: { command: 'npm test', passed: false, output: '1 failed' },
      }),
    );
    expect(body).toMatch(/^\*\*Not ready:\*\*.*failed: verify failed/);
    expect(body).toContain('`npm test` failed');
    expect(body).not.toContain('Closes #');
  });

  it('fences a report so its own backticks cannot end the fence', () => {
    const body = pullBody(task({ report: 'see ```\n# heading' }));
    expect(body).toContain('````\nsee ```\n# heading\n````');
  });
});

describe('landAsPull', () => {
  it('pushes a task that passed and opens a ready pull request, then comments on its issue', async () => {
    const api = new MemoryGitHub();
    const landed = await landAsPull(deps(api), task());
    expect(api.pushed).toEqual(['ralph/20261201-1522-a1b2c3/gh-7']);
    expect(landed.action).toBe('opened');
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]).toMatchObject({
      draft: false,
      base: 'main',
      head: 'ralph/20261201-1522-a1b2c3/gh-7',
    });
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

  it('opens nothing twice and comments once when re-run', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task());
    const again = await landAsPull(deps(api), task());
    expect(again).toMatchObject({ action: 'updated', commentUrl: null });
    expect(api.pulls).toHaveLength(1);
    expect(api.issueComments.get(7)).toHaveLength(1);
  });

  it('finds its pull request even once closed, and opens no second one', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task());
    Object.assign(api.pulls[0] ?? {}, { state: 'closed' });
    await landAsPull(deps(api), task());
    expect(api.pulls).toHaveLength(1);
  });

  it('marks its draft ready once a re-run passed', async () => {
    const api = new MemoryGitHub();
    await landAsPull(deps(api), task({ outcome: 'needs-review', why: 'verify failed' }));
    expect(api.pulls[0]?.draft).toBe(true);
    await landAsPull(deps(api), task());
    expect(api.pulls).toHaveLength(1);
    expect(api.pulls[0]?.draft).toBe(false);
    expect(api.pulls[0]?.body).toContain('Closes #7');
    expect(api.issueComments.get(7)).toHaveLength(2);
  });

  it('does not take a pull request of the same branch without its marker for its own', async () => {
    const api = new MemoryGitHub();
    await api.openPull(repo, {
      head: 'ralph/20261201-1522-a1b2c3/gh-7',
      base: 'main',
      title: 'x',
      body: 'a person',
      draft: false,
    });
    await landAsPull(deps(api), task({ outcome: 'failed', why: 'x' }));
    expect(api.pulls).toHaveLength(2);
    expect(api.pulls[0]?.body).toBe('a person');
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
  it('pushes the branch to a bare repository given as the remote', async () => {
    const local = tempRepo();
    gitIn(local, 'checkout', '--quiet', '-b', 'ralph/b/t');
    writeFileSync(join(local, 'change.txt'), 'x\n');
    gitIn(local, 'add', '--all');
    gitIn(local, 'commit', '--quiet', '-m', 'change');
    const bare = tempFolder('ralph-bare-');
    gitIn(bare, 'init', '--quiet', '--bare');
    await gitPusher(local, bare)('ralph/b/t');
    expect(gitIn(bare, 'rev-parse', 'refs/heads/ralph/b/t')).toBe(gitIn(local, 'rev-parse', 'HEAD'));
  });
});
