import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../support/fake-github.js';
import { addPullIssues, startFakeTeam } from '../support/fake-github-team.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import { everyRowOf } from '../support/postgres.js';
import { killedAfterTest, ralph, startWorker, useFleetScene } from './harness.js';

// `ralph submit --batch --land pr` through the built CLI on a real Postgres, against a loopback fake of GitHub: the
// worker (--allow-github) opens the pull requests with its own token; the submitter has none, and the fleet's
// database never holds one.

const scene = useFleetScene();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('env-agent.mjs')]);
// Passes unless the tree holds fail.txt: the task that writes it never passes.
const CHECK = quote([process.execPath, '-e', "process.exit(require('fs').existsSync('fail.txt') ? 1 : 0)"]);
const TOKEN = 'ghp_fake-token-of-the-worker-0123456789';
/** The submitter's environment: no GitHub token at all. */
const NO_TOKEN = { GITHUB_TOKEN: '', GH_TOKEN: '' };

const fakeGitHub = (): Promise<FakeGitHub> => startFakeTeam(TOKEN);

/** A `file://` bare remote with main at one commit; the worker's temp folder beside it. */
function remote() {
  const side = tempFolder('ralph-fleet-pulls-');
  const bare = join(side, 'remote.git');
  gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
  return { side, bare, url: `file://${bare}` };
}

/** A tasks file of the issues' tasks (`gh-<n>`, as --from-github makes them): the submitter reads no issue. */
function tasksFile(side: string, tasks: { id: string; objective: string; after?: string[] }[]): string {
  const file = join(side, `tasks-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(tasks));
  return file;
}

const submitPulls = (url: string, repo: string, file: string, more: string[] = []) =>
  ralph(
    [
      'submit',
      '--batch',
      file,
      '--repo',
      repo,
      '--into',
      'main',
      '--land',
      'pr',
      '--github-repo',
      'acme/app',
      ...more,
      '--agent-command',
      AGENT,
      '--verify',
      CHECK,
      '--max-rounds',
      '2',
      '--database-url',
      url,
    ],
    NO_TOKEN,
  );

const everyRow = () => everyRowOf(scene.pg.url);

describe('ralph submit --batch --land pr', () => {
  it("opens a ready pull request per task that passed (stacked) with the worker's token, a labelled draft for the one that did not, and a second submit opens nothing twice", async () => {
    const gh = await fakeGitHub();
    const { a, bad, b } = addPullIssues(gh);
    const url = scene.databaseFor('github_pulls');
    const repo = remote();
    const dumps = tempFolder('ralph-fleet-pulls-env-');
    const worker = killedAfterTest(
      scene,
      await startWorker(url, 'gh-pulls-worker', {
        env: { TMPDIR: repo.side, GITHUB_TOKEN: TOKEN, ENV_DUMP_DIR: dumps },
        extra: [
          '--allow-batch',
          '--allow-verify',
          '--allow-github',
          '--github-api',
          gh.url,
          '--state-dir',
          join(repo.side, 'state'),
        ],
      }),
    );
    const file = tasksFile(repo.side, [
      { id: `gh-${a}`, objective: 'Add a\nwrite a.txt A' },
      { id: `gh-${bad}`, objective: 'Add fail\nwrite fail.txt x' },
      { id: `gh-${b}`, objective: 'Add b\nwrite b.txt B', after: [`gh-${a}`] },
    ]);
    const main = gitIn(repo.bare, 'rev-parse', 'main');

    const submitted = await submitPulls(url, repo.url, file, ['--stack']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const batchId = submitted.stdout.trim();
    expect(submitted.stderr).toContain(
      `batch ${batchId}: 3 task(s) opening pull requests into main of acme/app`,
    );
    // The submitter never asked GitHub: it has no token. The worker may have begun already (an enqueue wakes it at
    // once), asking with its own: every request so far is the worker's.
    expect(gh.requests.filter((request) => request.as !== 'ana')).toEqual([]);

    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr + worker.stderr()).toBe(1);
    const pullUrl = 'http://127\\.0\\.0\\.1:\\d+/acme/app/pull/\\d+';
    expect(waited.stdout).toMatch(new RegExp(`^gh-${a}: pull request ${pullUrl}$`, 'm'));
    expect(waited.stdout).toMatch(new RegExp(`^gh-${b}: pull request ${pullUrl}$`, 'm'));
    expect(waited.stdout).toMatch(
      new RegExp(
        `^gh-${bad}: failed: .*\\n {2}draft pull request ${pullUrl} \\(labelled ralph: needs-review\\)$`,
        'm',
      ),
    );
    expect(waited.stdout).not.toContain('landed');

    expect(gh.pulls).toHaveLength(3);
    const pullOf = (issue: number) => gh.pulls.find((pull) => pull.head === `ralph/gh-${issue}`);
    expect(pullOf(a)).toMatchObject({ draft: false, base: 'main', state: 'open', title: 'Add a' });
    expect(pullOf(a)?.body).toContain(`Closes #${a}`);
    expect(pullOf(a)?.body).toContain('### Final report');
    expect(pullOf(a)?.body).toContain('done');
    expect(pullOf(a)?.body).toContain('Rounds: 1');
    expect(pullOf(a)?.body).toContain('passed');
    expect(pullOf(a)?.body).toContain(`Run report: \`ralph status ${batchId}\``);
    // Stacked: b's pull request goes into a's branch, and b's branch holds a's work under its own.
    expect(pullOf(b)).toMatchObject({ draft: false, base: `ralph/gh-${a}` });
    expect(gitIn(repo.bare, 'show', `refs/heads/ralph/gh-${b}:a.txt`)).toBe('A');
    expect(gitIn(repo.bare, 'show', `refs/heads/ralph/gh-${b}:b.txt`)).toBe('B');
    expect(pullOf(bad)).toMatchObject({ draft: true, base: 'main' });
    expect(pullOf(bad)?.body).toContain('**Not ready:**');
    expect(pullOf(bad)?.body).not.toContain('Closes #');
    const labelsOf = (issue: number) => gh.issues.find((i) => i.number === issue)?.labels ?? [];
    expect(labelsOf(pullOf(bad)?.number ?? 0)).toContain('ralph: needs-review');
    expect(labelsOf(pullOf(a)?.number ?? 0)).not.toContain('ralph: needs-review');
    // The target did not move.
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(main);
    const commentsOn = (issue: number) => gh.comments.filter((c) => c.issue === issue);
    for (const issue of [a, b, bad]) expect(commentsOn(issue), `#${issue}`).toHaveLength(1);
    // Every request was the worker's, with its token.
    expect(gh.requests.length).toBeGreaterThan(0);
    expect(gh.requests.every((request) => request.as === 'ana')).toBe(true);

    // The token: in no agent's environment, no row of any database, no output.
    expect(readdirSync(dumps).length).toBeGreaterThanOrEqual(3);
    for (const name of readdirSync(dumps)) {
      const env = readFileSync(join(dumps, name), 'utf8');
      expect(env, name).not.toContain(TOKEN);
      expect(JSON.parse(env), name).not.toHaveProperty('GITHUB_TOKEN');
    }
    const rows = await everyRow();
    expect(rows).toContain('acme');
    expect(rows).not.toContain(TOKEN);
    // The API's root only as the pull requests' own links (the fake serves both): no row names it otherwise.
    expect(rows.replaceAll(`${gh.url}/acme/app/pull/`, '')).not.toContain(gh.url);
    expect(submitted.stdout + submitted.stderr + waited.stdout + waited.stderr).not.toContain(TOKEN);
    expect(worker.stdout() + worker.stderr()).not.toContain(TOKEN);

    // The same issues submitted again: their pull requests are found by branch and marker and updated, never
    // opened twice; nothing is said twice on the issues.
    const again = await submitPulls(url, repo.url, file, ['--stack']);
    expect(again.code, again.stderr).toBe(0);
    const waitedAgain = await ralph(['wait', again.stdout.trim(), '--database-url', url]);
    expect(waitedAgain.code, waitedAgain.stdout + worker.stderr()).toBe(1);
    expect(waitedAgain.stdout).toMatch(new RegExp(`^gh-${a}: pull request ${pullUrl}$`, 'm'));
    expect(gh.pulls).toHaveLength(3);
    expect(gh.pulls.filter((pull) => !pull.draft)).toHaveLength(2);
    for (const issue of [a, b, bad]) expect(commentsOn(issue), `#${issue}`).toHaveLength(1);
    expect(await everyRow()).not.toContain(TOKEN);
    // The tasks whose pull request is ready for review were not run again (no round pushed their branch of this
    // batch); the draft's task was.
    const againBranches = gitIn(
      repo.bare,
      'for-each-ref',
      '--format=%(refname:short)',
      `refs/heads/ralph/${again.stdout.trim()}/`,
    );
    expect(againBranches).toContain(`gh-${bad}`);
    expect(againBranches).not.toContain(`gh-${a}`);
    expect(againBranches).not.toContain(`gh-${b}`);
  }, 240_000);

  it('a worker without --allow-github refuses the task, pushing nothing; a batch whose repository is not known is refused', async () => {
    const gh = await fakeGitHub();
    const a = gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt A', labels: ['ralph'] });
    const url = scene.databaseFor('github_pulls_refused');
    const repo = remote();
    const dumps = tempFolder('ralph-fleet-pulls-env-');
    killedAfterTest(
      scene,
      await startWorker(url, 'no-gh-worker', {
        env: { TMPDIR: repo.side, GITHUB_TOKEN: TOKEN, ENV_DUMP_DIR: dumps },
        extra: ['--allow-batch', '--allow-verify', '--state-dir', join(repo.side, 'state')],
      }),
    );
    const file = tasksFile(repo.side, [{ id: `gh-${a}`, objective: 'Add a\nwrite a.txt A' }]);

    // No --github-repo, and a --repo that is not on GitHub: refused, nothing submitted.
    const unknown = await ralph(
      [
        'submit',
        '--batch',
        file,
        '--repo',
        repo.url,
        '--land',
        'pr',
        '--agent-command',
        AGENT,
        '--database-url',
        url,
      ],
      NO_TOKEN,
    );
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('the repository the pull requests go to is not known');
    expect(gitIn(repo.bare, 'tag', '--list')).toBe('');

    const submitted = await submitPulls(url, repo.url, file);
    expect(submitted.code, submitted.stderr).toBe(0);
    const waited = await ralph(['wait', submitted.stdout.trim(), '--database-url', url]);
    expect(waited.code).toBe(1);
    expect(waited.stdout).toContain(
      `gh-${a}: failed: ralph fleet: worker no-gh-worker does not open pull requests (start it with --allow-github`,
    );
    expect(readdirSync(dumps)).toEqual([]);
    expect(gh.requests).toEqual([]);
    expect(gitIn(repo.bare, 'branch', '--list', 'ralph/*')).toBe('');
  }, 120_000);
});
