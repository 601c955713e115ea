import { afterEach, describe, expect, it } from 'vitest';
import { createGitHubApi, type GitHubWait } from '../../src/github/client.js';
import { GitHubApiError } from '../../src/github/github-api.js';
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from '../support/fake-github.js';

const repo = { owner: 'acme', repo: 'app' };
const writer = 'ghp_writerSECRET0123456789';
const reader = 'ghp_readerSECRET0123456789';
const classicNoRepo = 'ghp_classicSECRET0123456789';

let gh: FakeGitHub | undefined;
afterEach(async () => {
  await gh?.close();
  gh = undefined;
});

async function fake(options: Partial<FakeGitHubOptions> = {}): Promise<FakeGitHub> {
  gh = await startFakeGitHub({
    ...repo,
    tokens: {
      [writer]: { login: 'ana', permission: 'write' },
      [reader]: { login: 'rui', permission: 'read' },
      [classicNoRepo]: { login: 'old', permission: 'write', scopes: ['read:org', 'gist'] },
    },
    collaborators: { ana: 'write', bea: 'maintain', cid: 'triage' },
    ...options,
  });
  return gh;
}

function client(server: FakeGitHub, token = writer, waits: GitHubWait[] = []) {
  return createGitHubApi({ token, apiUrl: server.url, onWait: (w) => waits.push(w), waitScale: 0.001 });
}

describe('createGitHubApi against a fake GitHub', () => {
  it('lists open issues oldest first across pages, without pull requests, up to the limit', async () => {
    const server = await fake();
    for (let i = 1; i <= 130; i++) server.addIssue({ title: `issue ${i}`, author: 'ana', labels: ['ralph'] });
    server.addPull({ head: 'feature', base: 'main' });
    server.addIssue({ title: 'closed', author: 'ana', labels: ['ralph'], state: 'closed' });
    server.addIssue({ title: 'no label', author: 'ana' });
    const api = client(server);

    const all = await api.listIssues(repo, { labels: ['ralph'] });
    expect(all.map((i) => i.title)).toEqual(Array.from({ length: 130 }, (_, i) => `issue ${i + 1}`));
    expect(all[0]).toEqual({
      number: 1,
      title: 'issue 1',
      body: '',
      author: 'ana',
      labels: ['ralph'],
      htmlUrl: expect.stringMatching(/\/acme\/app\/issues\/1$/),
    });
    expect(server.requests.filter((r) => r.path.startsWith('/repos/acme/app/issues?'))).toHaveLength(2);

    const some = await api.listIssues(repo, { labels: ['ralph'], limit: 3 });
    expect(some.map((i) => i.number)).toEqual([1, 2, 3]);
    const withPulls = await api.listIssues(repo, { labels: [] });
    expect(withPulls.some((i) => i.title === 'feature')).toBe(false);
    expect(withPulls).toHaveLength(131);
  });

  it('filters by labels, assignee and milestone (by title or number)', async () => {
    const server = await fake();
    const v1 = server.addMilestone('v1');
    server.addIssue({ title: 'a', author: 'ana', labels: ['ralph', 'bug'], assignee: 'bea', milestone: v1 });
    server.addIssue({ title: 'b', author: 'ana', labels: ['ralph'], assignee: 'cid' });
    server.addIssue({ title: 'c', author: 'ana', labels: ['bug'], assignee: 'bea', milestone: v1 });
    const api = client(server);
    const titles = async (filter: Parameters<typeof api.listIssues>[1]) =>
      (await api.listIssues(repo, filter)).map((i) => i.title);
    expect(await titles({ labels: ['ralph', 'bug'] })).toEqual(['a']);
    expect(await titles({ labels: ['ralph'], assignee: 'cid' })).toEqual(['b']);
    expect(await titles({ labels: [], milestone: 'v1' })).toEqual(['a', 'c']);
    expect(await titles({ labels: ['bug'], milestone: String(v1) })).toEqual(['a', 'c']);
    await expect(api.listIssues(repo, { labels: [], milestone: 'v9' })).rejects.toThrow(
      /no milestone titled "v9"/,
    );
  });

  it("reads a user's permission, with maintain and triage kept apart and strangers as none", async () => {
    const server = await fake();
    const api = client(server);
    expect(await api.permissionOf(repo, 'ana')).toBe('write');
    expect(await api.permissionOf(repo, 'bea')).toBe('maintain');
    expect(await api.permissionOf(repo, 'cid')).toBe('triage');
    expect(await api.permissionOf(repo, 'eve')).toBe('none');
  });

  it("tells the token's login and names what a token without push lacks", async () => {
    const server = await fake();
    expect(await client(server).tokenAccess(repo)).toEqual({ login: 'ana', missing: [] });
    const lacking = await client(server, reader).tokenAccess(repo);
    expect(lacking.login).toBe('rui');
    expect(lacking.missing).toEqual([
      'contents: write (push branches)',
      'pull requests: write (open pull requests)',
      'issues: write (comment on issues)',
    ]);
    const classic = await client(server, classicNoRepo).tokenAccess(repo);
    expect(classic.missing).toEqual(['scope "public_repo" (or "repo")']);
  });

  it('opens, finds and updates pull requests; a draft is made ready through GraphQL', async () => {
    const server = await fake();
    const api = client(server);
    const opened = await api.openPull(repo, {
      head: 'ralph/gh-1',
      base: 'main',
      title: 'Fix it',
      body: 'report',
      draft: true,
    });
    expect(opened).toMatchObject({
      head: 'ralph/gh-1',
      base: 'main',
      draft: true,
      body: 'report',
      state: 'open',
    });
    expect(await api.pullsWithHead(repo, 'ralph/gh-1')).toEqual([opened]);
    expect(await api.pullsWithHead(repo, 'ralph/gh-2')).toEqual([]);
    await expect(
      api.openPull(repo, { head: 'ralph/gh-1', base: 'main', title: 'again', body: '', draft: false }),
    ).rejects.toThrow(/422/);

    const edited = await api.updatePull(repo, opened.number, { body: 'new report' });
    expect(edited).toMatchObject({ body: 'new report', draft: true });
    const ready = await api.updatePull(repo, opened.number, { draft: false });
    expect(ready.draft).toBe(false);
    expect(server.pulls[0]?.draft).toBe(false);

    const stored = server.pulls[0];
    if (stored !== undefined) stored.state = 'closed';
    expect(await api.pullsWithHead(repo, 'ralph/gh-1')).toEqual([]);
    expect(await api.pullsWithHead(repo, 'ralph/gh-1', 'all')).toHaveLength(1);
  });

  it('labels and comments an issue, and reads its comments back', async () => {
    const server = await fake();
    const n = server.addIssue({ title: 'x', author: 'bea' });
    const api = client(server);
    await api.addLabels(repo, n, ['ralph: needs-review']);
    expect(server.issues[0]?.labels).toEqual(['ralph: needs-review']);
    const url = await api.comment(repo, n, '<!-- ralph --> done');
    expect(url).toMatch(new RegExp(`/acme/app/issues/${n}#issuecomment-\\d+$`));
    expect(await api.comments(repo, n)).toEqual([{ body: '<!-- ralph --> done', author: 'ana' }]);
  });

  it("waits out a secondary limit's 403 retry-after, a 429 and a used-up primary limit, saying each wait", async () => {
    const server = await fake();
    const waits: GitHubWait[] = [];
    const api = client(server, writer, waits);
    server.rateLimit(
      { kind: 'secondary', retryAfter: 2 },
      { kind: 'too-many', retryAfter: 3 },
      { kind: 'primary', resetIn: 1 },
    );
    expect(await api.permissionOf(repo, 'ana')).toBe('write');
    expect(server.requests.map((r) => r.status)).toEqual([403, 429, 403, 200]);
    expect(waits).toEqual([
      { seconds: 2, why: expect.stringMatching(/secondary rate limit/) },
      { seconds: 3, why: expect.stringMatching(/429/) },
      { seconds: expect.any(Number), why: expect.stringMatching(/rate limit/) },
    ]);
  });

  it('gives up after a bounded number of rate-limit answers', async () => {
    const server = await fake();
    const waits: GitHubWait[] = [];
    const api = client(server, writer, waits);
    server.rateLimit(...Array.from({ length: 6 }, () => ({ kind: 'too-many' as const, retryAfter: 1 })));
    const failed = await api.permissionOf(repo, 'ana').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GitHubApiError);
    expect((failed as GitHubApiError).status).toBe(429);
    expect(waits).toHaveLength(3);
    expect(server.requests).toHaveLength(4);
  });

  it('names the request and the status of a failure, never the token', async () => {
    const server = await fake();
    const bad = 'ghp_unknownSECRET0123456789';
    for (const [token, status] of [
      [bad, 401],
      [reader, 403],
    ] as const) {
      const failed = await client(server, token)
        .openPull(repo, { head: 'h', base: 'main', title: 't', body: token, draft: false })
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(GitHubApiError);
      const error = failed as GitHubApiError;
      expect(error.status).toBe(status);
      expect(error.message).toMatch(new RegExp(`^GitHub POST /repos/acme/app/pulls: ${status} `));
      const everything = `${error.message} ${error.stack} ${JSON.stringify(error)} ${String(error.cause)}`;
      expect(everything).not.toContain(token);
    }
    expect(server.requests.every((r) => r.auth)).toBe(true);
  });

  it('reaches GitHub Enterprise under its path prefix', async () => {
    const server = await fake({ prefix: '/api/v3' });
    expect(server.url).toMatch(/\/api\/v3$/);
    server.addIssue({ title: 'on ghe', author: 'ana' });
    const api = client(server);
    expect((await api.listIssues(repo, { labels: [] })).map((i) => i.title)).toEqual(['on ghe']);
    const pull = await api.openPull(repo, { head: 'b', base: 'main', title: 't', body: '', draft: true });
    expect((await api.updatePull(repo, pull.number, { draft: false })).draft).toBe(false);
    expect(server.requests.map((r) => r.path.replace(/\?.*/, ''))).toEqual([
      '/api/v3/repos/acme/app/issues',
      '/api/v3/repos/acme/app/pulls',
      '/api/v3/repos/acme/app/pulls/2',
      '/api/graphql',
    ]);
  });
});
