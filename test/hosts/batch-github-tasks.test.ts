import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GitHubApi,
  GitHubApiError,
  type GitHubIssue,
  type IssueFilter,
} from '../../src/github/github-api.js';
import {
  assertNoGitHubFilter,
  GITHUB_TOKEN_VARIABLES,
  type GitHubConnect,
  readGitHubTasks,
  repoRefOf,
} from '../../src/hosts/cli/batch-github-tasks.js';

const run = promisify(execFile);

const issue = (number: number, author: string, body = ''): GitHubIssue => ({
  number,
  title: `issue ${number}`,
  body,
  author,
  labels: ['ralph'],
  htmlUrl: `https://github.com/team/app/issues/${number}`,
});

/** An in-memory GitHub with these issues and permissions, noting the filters and permission questions asked. */
function memoryGitHub(issues: GitHubIssue[], permissions: Record<string, 'admin' | 'write' | 'read'> = {}) {
  const filters: IssueFilter[] = [];
  const asked: string[] = [];
  const api = {
    listIssues: async (_repo, filter) => {
      filters.push(filter);
      return issues;
    },
    permissionOf: async (_repo, login) => {
      asked.push(login);
      return permissions[login] ?? 'none';
    },
  } as Pick<GitHubApi, 'listIssues' | 'permissionOf'> as GitHubApi;
  const connects: (string | undefined)[] = [];
  const connect: GitHubConnect = async (apiUrl) => {
    connects.push(apiUrl);
    return api;
  };
  return { connect, filters, asked, connects };
}

const saved = new Map(GITHUB_TOKEN_VARIABLES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const [name, value] of saved)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

describe('readGitHubTasks', () => {
  it('takes the issues of authors with write access, says taken and skipped ones, and asks each author once', async () => {
    const github = memoryGitHub(
      [
        issue(1, 'alice'),
        issue(2, 'mallory'),
        issue(3, 'bob', 'depends on #1'),
        issue(4, 'alice', 'blocked by #2'),
      ],
      { alice: 'admin', bob: 'write', mallory: 'read' },
    );
    const said: string[] = [];
    const tasks = await readGitHubTasks(
      { fromGithub: 'team/app', label: 'ralph, ready', assignee: 'alice', limit: '10' },
      (line) => said.push(line),
      github.connect,
    );
    expect(tasks).toEqual([
      { id: 'gh-1', objective: 'issue 1', after: [] },
      { id: 'gh-3', objective: 'issue 3\n\ndepends on #1', after: ['gh-1'] },
    ]);
    expect(github.filters).toEqual([{ labels: ['ralph', 'ready'], assignee: 'alice', limit: 10 }]);
    expect(github.asked).toEqual(['alice', 'mallory', 'bob']);
    expect(said).toEqual([
      '2 issue(s) of team/app taken as tasks:',
      '  gh-1  #1 "issue 1"',
      '  gh-3  #3 "issue 3" (after gh-1)',
      '2 issue(s) skipped:',
      '  #2 "issue 2": its author mallory has no write access to the repository (their permission: read)',
      '  #4 "issue 4": it depends on #2, which is not a task of this batch',
    ]);
  });

  it("with --from-authors asks GitHub no permission, and shows a title's escapes quoted", async () => {
    const github = memoryGitHub([{ ...issue(5, 'carol'), title: 'evil\u001b[2J\nline' }, issue(6, 'dan')]);
    const said: string[] = [];
    const tasks = await readGitHubTasks(
      { fromGithub: 'team/app', label: 'ralph', fromAuthors: 'Carol' },
      (line) => said.push(line),
      github.connect,
    );
    expect(tasks.map((task) => task.id)).toEqual(['gh-5']);
    expect(github.asked).toEqual([]);
    expect(said[1]).toBe('  gh-5  #5 "evil\\u001b[2J\\nline"');
    expect(said[3]).toBe('  #6 "issue 6": its author dan is not in --from-authors');
  });

  it('refuses when no issue is taken, after saying why each was skipped', async () => {
    const github = memoryGitHub([issue(1, 'mallory')]);
    const said: string[] = [];
    await expect(
      readGitHubTasks({ fromGithub: 'team/app', label: 'ralph' }, (line) => said.push(line), github.connect),
    ).rejects.toThrow(
      'none of the 1 matching issue(s) of team/app could be taken as a task; nothing was started',
    );
    expect(said).toHaveLength(2);
  });

  it('refuses issues that depend on each other in a cycle', async () => {
    const github = memoryGitHub([issue(1, 'a', 'depends on #2'), issue(2, 'a', 'depends on #1')]);
    await expect(
      readGitHubTasks({ fromGithub: 'team/app', label: 'ralph', fromAuthors: 'a' }, () => {}, github.connect),
    ).rejects.toThrow('the issues cannot be a batch: tasks come after each other in a cycle');
  });

  it.each([
    [{ fromGithub: 'team' }, '--from-github must name a repository as OWNER/REPO'],
    [{ fromGithub: 'team/app/x', label: 'r' }, '--from-github must name a repository as OWNER/REPO'],
    [{ fromGithub: 'team/..', label: 'r' }, '--from-github must name a repository as OWNER/REPO'],
    [{ fromGithub: 'team/app' }, '--from-github needs --label NAME'],
    [{ fromGithub: 'team/app', label: ' , ' }, '--from-github needs --label NAME'],
    [{ fromGithub: 'team/app', label: 'r', limit: '0' }, '--limit must be a whole number from 1'],
    [{ fromGithub: 'team/app', label: 'r', limit: '2x' }, '--limit must be a whole number from 1'],
    [{ fromGithub: 'team/app', label: 'r', fromAuthors: ',' }, '--from-authors must list at least one'],
    [{ fromGithub: 'team/app', label: 'r', githubApi: 'ftp://x' }, '--github-api must be an http(s) URL'],
    [
      { fromGithub: 'team/app', label: 'r', githubApi: 'https://t:x@ghe.example' },
      'must carry no credential',
    ],
  ])('refuses %j before it connects', async (options, message) => {
    const github = memoryGitHub([issue(1, 'a')]);
    await expect(readGitHubTasks(options, () => {}, github.connect)).rejects.toThrow(message);
    expect(github.connects).toEqual([]);
  });

  it('refuses (nothing started) when GitHub does not answer, with its answer', async () => {
    const api = {
      listIssues: () => Promise.reject(new GitHubApiError('GET /repos/team/app/issues', 404, 'Not Found')),
    } as Pick<GitHubApi, 'listIssues'> as GitHubApi;
    await expect(
      readGitHubTasks(
        { fromGithub: 'team/app', label: 'r' },
        () => {},
        async () => api,
      ),
    ).rejects.toThrow(
      'ralph batch: cannot read the issues of team/app and who may write them: GitHub GET /repos/team/app/issues: 404 Not Found; nothing was started',
    );
  });

  it('hands --github-api to the client', async () => {
    const github = memoryGitHub([issue(1, 'a')]);
    const options = {
      fromGithub: 'team/app',
      label: 'r',
      fromAuthors: 'a',
      githubApi: 'http://127.0.0.1:9/api/v3',
    };
    await readGitHubTasks(options, () => {}, github.connect);
    expect(github.connects).toEqual(['http://127.0.0.1:9/api/v3']);
  });
});

describe('the token and the processes a batch from GitHub starts', () => {
  it('is gone from the environment once the client holds it: a child started after sees no token variable', async () => {
    for (const name of GITHUB_TOKEN_VARIABLES) process.env[name] = `secret-${name}`;
    const github = memoryGitHub([issue(1, 'a')]);
    const held: string[] = [];
    const connect: GitHubConnect = async (apiUrl, onWait) => {
      held.push(process.env.GITHUB_TOKEN ?? 'none');
      return github.connect(apiUrl, onWait);
    };
    await readGitHubTasks({ fromGithub: 'team/app', label: 'r', fromAuthors: 'a' }, () => {}, connect);
    expect(held).toEqual(['secret-GITHUB_TOKEN']);
    const { stdout } = await run(process.execPath, [
      '-e',
      'process.stdout.write(JSON.stringify(process.env))',
    ]);
    const childEnv = JSON.parse(stdout) as Record<string, string>;
    for (const name of GITHUB_TOKEN_VARIABLES) expect(childEnv[name]).toBeUndefined();
    expect(stdout).not.toContain('secret-');
  });
});

describe('repoRefOf and assertNoGitHubFilter', () => {
  it('reads OWNER/REPO', () => {
    expect(repoRefOf(' octo-org/my.repo_1 ')).toEqual({ owner: 'octo-org', repo: 'my.repo_1' });
  });
  it('refuses a GitHub filter without --from-github', () => {
    expect(() => assertNoGitHubFilter({ label: 'ralph' })).toThrow('--label is for --from-github');
    expect(() => assertNoGitHubFilter({})).not.toThrow();
  });
});
