import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../support/fake-github.js';
import { addTeamIssues, fromTeam, startFakeTeam, teamIssueLines } from '../support/fake-github-team.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import { everyRowOf, postgresBin } from '../support/postgres.js';
import { killedAfterTest, ralph, startWorker, useFleetScene } from './harness.js';

// `ralph submit --batch --from-github` through the built CLI against a loopback fake of GitHub and a real Postgres:
// the submitter reads the issues with its own token, and the fleet's database never holds that token.

const run = promisify(execFile);
const scene = useFleetScene();
const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
const TOKEN = 'ghp_fake-token-of-the-submitter-0123456789';

/** A `file://` bare remote with main at one commit; the workers' temp folder beside it. */
function remote() {
  const side = tempFolder('ralph-fleet-github-');
  const bare = join(side, 'remote.git');
  gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
  return { side, bare, url: `file://${bare}` };
}

/** `ralph submit --batch --from-github acme/app --label ralph` on the fake, onto main of `repo`, with `more`. */
const submitFromFake = (gh: FakeGitHub, databaseUrl: string, repo: string, more: string[], token = TOKEN) =>
  ralph(
    [
      'submit',
      '--batch',
      ...more,
      ...fromTeam(gh),
      '--repo',
      repo,
      '--into',
      'main',
      '--agent-command',
      AGENT,
      '--database-url',
      databaseUrl,
    ],
    { GITHUB_TOKEN: token, GH_TOKEN: token },
  );

/** The server's own `postgres` database (the scene's `ralph` one is never made). */
const serverUrl = () => scene.pg.url.replace(/\/ralph$/, '/postgres');

const everyRow = () => everyRowOf(scene.pg.url);

/** The names of the server's databases. */
async function databases(): Promise<string[]> {
  const bin = await postgresBin();
  const { stdout } = await run(join(bin as string, 'psql'), [
    serverUrl(),
    '-Atc',
    'SELECT datname FROM pg_database',
  ]);
  return stdout.split('\n').filter(Boolean);
}

describe('ralph submit --batch --from-github', () => {
  it('submits the taken issues as tasks gh-<n> (after from "depends on"), says the skipped one, and the token is in no row of the database', async () => {
    const gh = await startFakeTeam(TOKEN);
    const issues = addTeamIssues(gh);
    const { first, second } = issues;
    const url = scene.databaseFor('github_tasks');
    const repo = remote();
    // The worker has no GitHub token of the submitter's: it gets the tasks through the database alone.
    killedAfterTest(
      scene,
      await startWorker(url, 'gh-worker', {
        env: { TMPDIR: repo.side },
        extra: ['--allow-batch', '--state-dir', join(repo.side, 'state')],
      }),
    );

    const submitted = await submitFromFake(gh, url, repo.url, []);
    expect(submitted.code, submitted.stderr).toBe(0);
    const batchId = submitted.stdout.trim();
    expect(batchId).toMatch(/^\d{8}-\d{4}-[0-9a-f]{6}$/);
    expect(submitted.stderr).toContain(`ralph submit --batch: 2 issue(s) of acme/app taken as tasks:`);
    for (const line of teamIssueLines(issues)) expect(submitted.stderr).toContain(line);
    expect(submitted.stderr).not.toContain('Not a task');
    expect(submitted.stderr).toContain(`batch ${batchId}: 2 task(s) landing on main`);
    // Every request carried the token of the submitter, ana's.
    expect(gh.requests.length).toBeGreaterThan(0);
    expect(gh.requests.every((request) => request.as === 'ana')).toBe(true);

    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout.split('\n').filter(Boolean).sort()).toEqual([
      expect.stringMatching(new RegExp(`^gh-${first}: landed: main at [0-9a-f]{40}$`)),
      expect.stringMatching(new RegExp(`^gh-${second}: landed: main at [0-9a-f]{40}$`)),
    ]);
    expect(gitIn(repo.bare, 'show', 'main:a.txt')).toBe('a');
    expect(gitIn(repo.bare, 'show', 'main:b.txt')).toBe('b');
    expect(gitIn(repo.bare, 'ls-tree', '--name-only', 'main').split('\n')).not.toContain('evil.txt');
    // gh-<second> came after gh-<first>: first's landing is below second's on main.
    const landed = gitIn(repo.bare, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', 'main')
      .split('\n')
      .filter(Boolean);
    expect(landed.indexOf(`${batchId}/gh-${second}`)).toBeLessThan(landed.indexOf(`${batchId}/gh-${first}`));

    // The batch's rows, its tasks' rows and the workflows' inputs and outputs: the issue's text is there, the
    // token is not.
    const rows = await everyRow();
    expect(rows).toContain('write b.txt b');
    expect(rows).toContain(`gh-${second}`);
    expect(rows).not.toContain(TOKEN);
    expect(rows).not.toContain(gh.url);
    expect(submitted.stdout + submitted.stderr).not.toContain(TOKEN);
  }, 120_000);

  it('refuses, exit 2, submitting nothing: a tasks file with --from-github, GitHub refusing the token, a filter without --from-github', async () => {
    const gh = await startFakeTeam(TOKEN);
    gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt a', labels: ['ralph'] });
    const url = scene.databaseFor('github_refused');
    const repo = remote();
    const tasksFile = join(repo.side, 'tasks.json');
    writeFileSync(tasksFile, JSON.stringify([{ id: 'one', objective: 'write one.txt one' }]));

    const both = await submitFromFake(gh, url, repo.url, [tasksFile]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      'ralph submit --batch takes its tasks from a tasks file or from --from-github, not both',
    );
    expect(gh.requests).toEqual([]);

    const trusted = await submitFromFake(gh, url, repo.url, ['--trust-tasks']);
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toContain('--trust-tasks is for a tasks file');
    expect(gh.requests).toEqual([]);

    const unknown = await submitFromFake(gh, url, repo.url, [], 'ghp_not-a-token-github-knows');
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain(
      'ralph submit --batch: cannot read the issues of acme/app and who may write them: GitHub GET /repos/acme/app/issues: 401 Bad credentials; nothing was started',
    );
    expect(unknown.stderr).not.toContain('ghp_not-a-token-github-knows');

    const submit = (...args: string[]) =>
      ralph(['submit', ...args, '--agent-command', AGENT, '--database-url', url]);
    const filter = await submit('--batch', tasksFile, '--label', 'ralph', '--repo', repo.url);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toContain('ralph submit --batch: --label is for --from-github');
    const loose = await submit('an objective', '--assignee', 'ana');
    expect(loose.code).toBe(2);
    expect(loose.stderr).toContain('--assignee is for --from-github');

    // Nothing was submitted: the fleet's database was never even made, and no tag was pushed to the remote.
    expect(await databases()).not.toContain('github_refused');
    expect(gitIn(repo.bare, 'tag', '--list')).toBe('');
  }, 60_000);
});
