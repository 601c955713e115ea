import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { allText } from '../support/all-text.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { addPullIssues, startFakeTeam } from '../support/fake-github-team.js';
import { gitIn, repoWithOrigin, tempFolder } from '../support/git-repo.js';

// `ralph batch --from-github … --land pr` through the built CLI against a loopback fake of GitHub and a bare
// repository as origin: a pull request per task, ready only for one that passed, and a re-run that opens nothing
// twice.

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('env-agent.mjs')]);
// Passes unless the tree holds fail.txt: the task of the issue that writes it never passes.
const CHECK = quote([process.execPath, '-e', "process.exit(require('fs').existsSync('fail.txt') ? 1 : 0)"]);
const TOKEN = 'ghp_fake-token-for-ana-pulls-0123456789';
const READER = 'ghp_fake-token-that-may-only-read-0123';

/** The fake GitHub: ana's token may write, rita's only read. */
const fakeGitHub = (): Promise<FakeGitHub> =>
  startFakeTeam(TOKEN, { [READER]: { login: 'rita', permission: 'read' } });

const landAsPulls = (gh: FakeGitHub, repo: string, env: NodeJS.ProcessEnv) =>
  ralph(
    [
      'batch',
      '--from-github',
      'acme/app',
      '--label',
      'ralph',
      '--github-api',
      gh.url,
      '--land',
      'pr',
      '--stack',
      '--into',
      'main',
      '--agent-command',
      AGENT,
      '--verify',
      CHECK,
      '--max-rounds',
      '2',
      '--cwd',
      repo,
    ],
    { cwd: repo, env },
  );

describe('ralph batch --land pr', () => {
  test('opens a ready pull request per task that passed (stacked), a labelled draft for the one that did not, and a re-run opens nothing twice', async () => {
    const gh = await fakeGitHub();
    const { a, bad, b } = addPullIssues(gh);
    const { repo, origin } = repoWithOrigin();
    const dumps = tempFolder('ralph-pulls-env-');
    const env = { ...process.env, GITHUB_TOKEN: TOKEN, ENV_DUMP_DIR: dumps };
    // GitHub's secondary rate limit on the first request: waited out, and said.
    gh.rateLimit({ kind: 'secondary', retryAfter: 1 });
    const first = await landAsPulls(gh, repo, env);
    expect(first.stderr).toContain('GitHub: waiting 1s');
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(
      /^gh-1: passed\n {2}pull request http:\/\/127\.0\.0\.1:\d+\/acme\/app\/pull\/\d+$/m,
    );
    expect(first.stdout).toMatch(/^gh-2: failed: .*\n {2}draft pull request .* \(needs review\)$/m);
    expect(first.stdout).toContain('pull requests into main; main itself did not move');
    expect(first.stderr).not.toContain('landed on main');
    expect(gh.pulls).toHaveLength(3);
    const pullOf = (issue: number) => gh.pulls.find((pull) => pull.head === `ralph/gh-${issue}`);
    expect(pullOf(a)).toMatchObject({ draft: false, base: 'main', state: 'open', title: 'Add a' });
    expect(pullOf(a)?.body).toContain(`Closes #${a}`);
    expect(pullOf(a)?.body).toContain('passed');
    expect(pullOf(a)?.body).toContain('Run report: `ralph report .git/ralph/batches/');
    expect(pullOf(b)).toMatchObject({ draft: false, base: `ralph/gh-${a}` });
    expect(pullOf(bad)).toMatchObject({ draft: true, base: 'main' });
    expect(pullOf(bad)?.body).toContain('**Not ready:**');
    expect(pullOf(bad)?.body).not.toContain('Closes #');
    const labelsOf = (issue: number) => gh.issues.find((i) => i.number === issue)?.labels ?? [];
    expect(labelsOf(pullOf(bad)?.number ?? 0)).toContain('ralph: needs-review');
    expect(labelsOf(pullOf(a)?.number ?? 0)).not.toContain('ralph: needs-review');
    // Each branch is on origin, the stacked one with the work it came after under it; the target did not move.
    expect(gitIn(origin, 'show', `refs/heads/ralph/gh-${b}:a.txt`)).toBe('A');
    expect(gitIn(origin, 'rev-parse', 'main')).toBe(gitIn(repo, 'rev-parse', 'main'));
    const commentsOn = (issue: number) => gh.comments.filter((c) => c.issue === issue);
    for (const issue of [a, b, bad]) expect(commentsOn(issue), `#${issue}`).toHaveLength(1);
    expect(commentsOn(bad)[0]?.body).toContain('Draft pull request');
    // The token: in no agent's environment, no recording, no output.
    for (const name of readdirSync(dumps))
      expect(readFileSync(join(dumps, name), 'utf8'), name).not.toContain(TOKEN);
    expect(readdirSync(dumps).length).toBeGreaterThanOrEqual(3);
    expect(allText(join(repo, '.git', 'ralph'))).not.toContain(TOKEN);
    expect(first.stdout + first.stderr).not.toContain(TOKEN);

    // Again, as a later batch: the ready ones are left for review (not run), the draft's task runs again and its
    // pull request is updated; nothing is opened or said twice.
    const again = await landAsPulls(gh, repo, env);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`gh-${a}: not run: its pull request`);
    expect(again.stderr).toContain(`gh-${b}: not run: its pull request`);
    expect(again.stderr).toMatch(new RegExp(`gh-${bad}: pull request updated .*draft`));
    expect(gh.pulls).toHaveLength(3);
    for (const issue of [a, b, bad]) expect(commentsOn(issue), `#${issue}`).toHaveLength(1);
    expect(gh.pulls.filter((pull) => !pull.draft)).toHaveLength(2);
  }, 180_000);

  test('refuses a token that may not push, open pull requests or comment, naming what it lacks, before anything starts', async () => {
    const gh = await fakeGitHub();
    gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt A', labels: ['ralph'] });
    const { repo } = repoWithOrigin();
    const dumps = tempFolder('ralph-pulls-env-');
    const done = await landAsPulls(gh, repo, { ...process.env, GITHUB_TOKEN: READER, ENV_DUMP_DIR: dumps });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('Ralph cannot use the GitHub token of rita on acme/app: it is missing');
    expect(done.stderr).toContain('pull requests: write');
    expect(readdirSync(dumps)).toEqual([]);
    expect(gh.pulls).toEqual([]);
    expect(done.stderr).not.toContain(READER);
  });

  test('--github-repo without --land pr is refused', async () => {
    const { repo } = repoWithOrigin();
    const done = await ralph(['batch', 'tasks.md', '--github-repo', 'acme/app', '--cwd', repo], {
      cwd: repo,
    });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain('--github-repo needs --land pr');
  });
});
