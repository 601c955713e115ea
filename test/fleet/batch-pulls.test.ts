import { describe, expect, it } from 'vitest';
import type { FleetBatchTask } from '../../src/fleet/batch-input.js';
import {
  fleetGitHub,
  landingPullProblem,
  loopOutcomeOf,
  pullRowProblem,
} from '../../src/fleet/batch-pulls.js';
import type { FleetOutcome } from '../../src/fleet/run-input.js';
import { MemoryGitHub } from '../support/memory-github.js';

// A fleet task row's pull-request fields are anyone's who can write to the database: the worker checks them again.

const row = (change: Record<string, unknown> = {}): FleetBatchTask =>
  ({
    batchId: '20261205-1404-171539',
    taskId: 'gh-1',
    repo: 'file:///srv/app.git',
    target: 'main',
    branch: 'ralph/20261205-1404-171539/gh-1',
    base: 'a'.repeat(40),
    after: [],
    verify: null,
    verifyTimeoutMs: 1000,
    ...change,
  }) as unknown as FleetBatchTask;

describe('pullRowProblem', () => {
  it('takes a row that lands on the target, and one that lands as a pull request on a repository by GitHub’s rule', () => {
    expect(pullRowProblem(row())).toBeNull();
    expect(
      pullRowProblem(row({ land: 'pr', github: { owner: 'acme', repo: 'app' }, stack: true })),
    ).toBeNull();
    expect(
      pullRowProblem(
        row({ land: 'pr', github: { owner: 'acme', repo: 'app' }, reportUrl: 'https://ci.test/r.html' }),
      ),
    ).toBeNull();
  });

  it('refuses a land other than pr, a repository not by the rule, a stack not boolean, a report URL not http(s)', () => {
    expect(pullRowProblem(row({ land: 'push' }))).toContain('its land "push" is refused');
    expect(pullRowProblem(row({ land: 'pr', github: { owner: '../x', repo: 'app' } }))).toContain(
      'its GitHub repository',
    );
    expect(pullRowProblem(row({ land: 'pr', github: 'acme/app' }))).toContain('its GitHub repository');
    expect(
      pullRowProblem(row({ land: 'pr', github: { owner: 'acme', repo: 'app' }, stack: 'yes' })),
    ).toContain('its stack "yes" is refused');
    for (const reportUrl of ['file:///etc/passwd', 'https://user:secret@ci.test/r', 'not a url'])
      expect(
        pullRowProblem(row({ land: 'pr', github: { owner: 'acme', repo: 'app' }, reportUrl })),
        reportUrl,
      ).toContain('its report URL');
  });

  it('refuses pull-request fields on a row that does not land as a pull request', () => {
    expect(pullRowProblem(row({ github: { owner: 'acme', repo: 'app' } }))).toContain(
      'its github is refused',
    );
    expect(pullRowProblem(row({ stack: true }))).toContain('its stack is refused');
  });
});

describe('landingPullProblem', () => {
  it('takes an objective with no stacked branch, or a task branch on GitHub and a commit id', () => {
    expect(landingPullProblem({ objective: 'x', stackedOn: null })).toBeNull();
    expect(
      landingPullProblem({ objective: 'x', stackedOn: { branch: 'ralph/gh-1', head: 'b'.repeat(40) } }),
    ).toBeNull();
  });

  it('refuses a branch that is no task branch, a commit that is no id, a missing objective', () => {
    expect(landingPullProblem(null)).toContain('no object');
    expect(landingPullProblem({ stackedOn: null })).toContain('no text');
    for (const branch of ['main', 'ralph/../main', '--upload-pack=x', 'refs/heads/ralph/gh-1'])
      expect(
        landingPullProblem({ objective: 'x', stackedOn: { branch, head: 'b'.repeat(40) } }),
        branch,
      ).toContain('stacked-on branch');
    expect(
      landingPullProblem({ objective: 'x', stackedOn: { branch: 'ralph/gh-1', head: 'HEAD' } }),
    ).toContain('stacked-on commit');
  });
});

describe('loopOutcomeOf', () => {
  const failed = { ok: false } as unknown as FleetOutcome;
  const ended = (status: string) =>
    ({ ok: true, envelope: { result: { status } } }) as unknown as FleetOutcome;
  it('tells a draft why its task did not pass: never passed', () => {
    expect(loopOutcomeOf(failed, true)).toBe('budget-limited');
    expect(loopOutcomeOf(failed, false)).toBe('failed');
    expect(loopOutcomeOf(ended('budget-limited'), false)).toBe('budget-limited');
    expect(loopOutcomeOf(ended('blocked'), false)).toBe('needs-review');
  });
});

describe('fleetGitHub', () => {
  it('refuses a token that lacks rights on the repository, naming them, and asks again next time', async () => {
    const api = new MemoryGitHub();
    let missing = ['pull requests: write (open pull requests)'];
    api.tokenAccess = async () => ({ login: 'worker-bot', missing });
    const github = fleetGitHub(api);
    const repo = { owner: 'acme', repo: 'app' };
    await expect(github.accessTo(repo)).rejects.toThrow(
      'Ralph cannot use the GitHub token of worker-bot on acme/app: it is missing pull requests: write',
    );
    missing = [];
    await expect(github.accessTo(repo)).resolves.toMatchObject({ login: 'worker-bot', repo });
  });
});
