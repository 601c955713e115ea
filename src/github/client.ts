// The GitHub client ralph uses: Octokit with its retry and throttling plugins, so GitHub's rate limits (primary and
// secondary) are waited out with backoff rather than failing a batch, and every wait is said to the host. Every
// failure becomes a GitHubApiError carrying GitHub's message, never the token.
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import {
  type GitHubApi,
  GitHubApiError,
  type GitHubIssue,
  type GitHubPull,
  type IssueFilter,
  type RepoPermission,
  type RepoRef,
} from './github-api.js';

/** A wait for GitHub's rate limit, as the host may say it in progress. */
export interface GitHubWait {
  seconds: number;
  why: string;
}

/** How `createGitHubApi` reaches GitHub. */
export interface GitHubClientOptions {
  token: string;
  /** GitHub Enterprise's API root (`--github-api`), e.g. https://ghe.example.com/api/v3; default api.github.com. */
  apiUrl?: string;
  /** Called before each wait for a rate limit. */
  onWait?: (wait: GitHubWait) => void;
  /** Multiplies every wait and write pacing (tests pass a small one); default 1. */
  waitScale?: number;
  /** How many times one request is retried after a rate limit; default 3. */
  maxRetries?: number;
}

/** Longer waits than this are not waited out: the request fails and says when GitHub will answer again. */
const longestWaitSeconds = 15 * 60;

const RalphOctokit = Octokit.plugin(retry, throttling);
type Client = InstanceType<typeof RalphOctokit>;

/** A `GitHubApi` talking to GitHub (or GitHub Enterprise) with the token. */
export function createGitHubApi(options: GitHubClientOptions): GitHubApi {
  const octokit = createOctokit(options);
  const call = async <T>(request: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw apiError(request, error, options.token);
    }
  };
  return {
    listIssues: (repo, filter) =>
      call(`GET /repos/${slug(repo)}/issues`, () => listIssues(octokit, repo, filter)),
    permissionOf: (repo, login) =>
      call(`GET /repos/${slug(repo)}/collaborators/${login}/permission`, () =>
        permissionOf(octokit, repo, login),
      ),
    tokenAccess: (repo) => call(`GET /repos/${slug(repo)}`, () => tokenAccess(octokit, repo)),
    pullsWithHead: (repo, branch, state = 'open') =>
      call(`GET /repos/${slug(repo)}/pulls`, async () => {
        const pulls = await octokit.paginate(octokit.rest.pulls.list, {
          ...repo,
          head: `${repo.owner}:${branch}`,
          state,
          per_page: 100,
        });
        return pulls.map(toPull);
      }),
    openPull: (repo, pull) =>
      call(`POST /repos/${slug(repo)}/pulls`, async () => {
        const { data } = await octokit.rest.pulls.create({ ...repo, ...pull });
        return toPull(data);
      }),
    updatePull: (repo, number, change) =>
      call(`PATCH /repos/${slug(repo)}/pulls/${number}`, async () => {
        const { data } = await (change.body === undefined
          ? octokit.rest.pulls.get({ ...repo, pull_number: number })
          : octokit.rest.pulls.update({ ...repo, pull_number: number, body: change.body }));
        if (change.draft !== false || data.draft !== true) return toPull(data);
        // REST cannot mark a draft ready for review; only GraphQL's mutation can.
        await octokit.graphql(
          'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }',
          { id: data.node_id },
        );
        return { ...toPull(data), draft: false };
      }),
    addLabels: (repo, issueNumber, labels) =>
      call(`POST /repos/${slug(repo)}/issues/${issueNumber}/labels`, async () => {
        await octokit.rest.issues.addLabels({ ...repo, issue_number: issueNumber, labels });
      }),
    comment: (repo, issueNumber, body) =>
      call(`POST /repos/${slug(repo)}/issues/${issueNumber}/comments`, async () => {
        const { data } = await octokit.rest.issues.createComment({
          ...repo,
          issue_number: issueNumber,
          body,
        });
        return data.html_url;
      }),
    comments: (repo, issueNumber) =>
      call(`GET /repos/${slug(repo)}/issues/${issueNumber}/comments`, async () => {
        const comments = await octokit.paginate(octokit.rest.issues.listComments, {
          ...repo,
          issue_number: issueNumber,
          per_page: 100,
        });
        return comments.map((c) => ({ body: c.body ?? '', author: c.user?.login ?? '' }));
      }),
  };
}

function createOctokit(options: GitHubClientOptions): Client {
  const scale = options.waitScale ?? 1;
  const maxRetries = options.maxRetries ?? 3;
  const wait = (seconds: number, why: string, retryCount: number): boolean => {
    if (retryCount >= maxRetries || seconds > longestWaitSeconds) return false;
    options.onWait?.({ seconds, why });
    return true;
  };
  const octokit = new RalphOctokit({
    auth: options.token,
    ...(options.apiUrl === undefined ? {} : { baseUrl: options.apiUrl.replace(/\/+$/, '') }),
    userAgent: 'ralph-machine',
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    // 429 and 403 are the rate limits' answers: waited out below and by the throttling plugin, not blindly retried.
    retry: { retryAfterBaseValue: 1000 * scale, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    throttle: {
      id: `ralph-${Math.random().toString(36).slice(2)}`,
      retryAfterBaseValue: 1000 * scale,
      onRateLimit: (seconds: number, _options: object, _octokit: unknown, retryCount: number) =>
        wait(seconds, "GitHub's rate limit for the token is used up", retryCount),
      onSecondaryRateLimit: (seconds: number, _options: object, _octokit: unknown, retryCount: number) =>
        wait(seconds, "GitHub's secondary rate limit", retryCount),
      // GitHub asks writes to be paced (1 s, 3 s for those that notify); tests scale the pacing away.
      ...(scale < 1 ? ({ write: unpaced, notifications: unpaced } as object) : {}),
    },
  });
  // A 429, or a 403 with retry-after that the throttling plugin did not take for a secondary limit: wait as told.
  octokit.hook.wrap('request', async (request, requestOptions) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(requestOptions);
      } catch (error) {
        const seconds = retryAfterOf(error);
        if (
          seconds === null ||
          !wait(seconds, `GitHub answered ${statusOf(error)}: too many requests`, attempt)
        ) {
          throw error;
        }
        await new Promise((settle) => setTimeout(settle, seconds * 1000 * scale));
      }
    }
  });
  return octokit;
}

/** A throttling group that runs each job at once (the plugin's groups are `group.key(id).schedule(options, fn)`). */
const unpaced = {
  key: () => ({
    schedule: (_options: object, job: (...args: unknown[]) => unknown, ...args: unknown[]) => job(...args),
  }),
};

function statusOf(error: unknown): number | null {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : null;
}

/** The seconds a 429 or a 403 asks to wait (`retry-after`), null when it is not such an answer. */
function retryAfterOf(error: unknown): number | null {
  const status = statusOf(error);
  if (status !== 429 && status !== 403) return null;
  const headers = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {};
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter;
  return status === 429 ? 60 : null;
}

async function listIssues(octokit: Client, repo: RepoRef, filter: IssueFilter): Promise<GitHubIssue[]> {
  const milestone =
    filter.milestone === undefined ? undefined : await milestoneNumber(octokit, repo, filter.milestone);
  const issues: GitHubIssue[] = [];
  const pages = octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
    ...repo,
    state: 'open',
    sort: 'created',
    direction: 'asc',
    per_page: 100,
    ...(filter.labels.length > 0 ? { labels: filter.labels.join(',') } : {}),
    ...(filter.assignee === undefined ? {} : { assignee: filter.assignee }),
    ...(milestone === undefined ? {} : { milestone }),
  });
  for await (const page of pages) {
    for (const issue of page.data) {
      if (issue.pull_request) continue;
      issues.push({
        number: issue.number,
        title: issue.title,
        body: issue.body ?? '',
        author: issue.user?.login ?? '',
        labels: issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
        htmlUrl: issue.html_url,
      });
      if (filter.limit !== undefined && issues.length >= filter.limit) return issues;
    }
  }
  return issues;
}

/** The milestone's number: given as one, or found by its title among the open milestones. */
async function milestoneNumber(octokit: Client, repo: RepoRef, milestone: string): Promise<string> {
  if (/^\d+$/.test(milestone) || milestone === '*' || milestone === 'none') return milestone;
  const milestones = await octokit.paginate(octokit.rest.issues.listMilestones, {
    ...repo,
    state: 'all',
    per_page: 100,
  });
  const found = milestones.find((m) => m.title === milestone);
  if (found === undefined) {
    throw new GitHubApiError(
      `GET /repos/${slug(repo)}/milestones`,
      null,
      `no milestone titled "${milestone}"`,
    );
  }
  return String(found.number);
}

async function permissionOf(octokit: Client, repo: RepoRef, login: string): Promise<RepoPermission> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: login });
    const role = (data as { role_name?: string }).role_name;
    // role_name distinguishes maintain and triage, which `permission` folds into write and read.
    if (role === 'admin' || role === 'maintain' || role === 'write' || role === 'triage' || role === 'read')
      return role;
    const permission = data.permission;
    return permission === 'admin' || permission === 'write' || permission === 'read' ? permission : 'none';
  } catch (error) {
    if (statusOf(error) === 404) return 'none';
    throw error;
  }
}

/** The token's login and what it lacks on the repository, each in words a user can act on. */
async function tokenAccess(octokit: Client, repo: RepoRef): Promise<{ login: string; missing: string[] }> {
  const user = await octokit.rest.users.getAuthenticated();
  const { data, headers } = await octokit.rest.repos.get({ ...repo });
  const missing: string[] = [];
  const scopes = headers['x-oauth-scopes'];
  if (typeof scopes === 'string') {
    // A classic token: its scopes say it all; `public_repo` covers only public repositories.
    const granted = scopes.split(',').map((s) => s.trim());
    const enough = granted.includes('repo') || (granted.includes('public_repo') && data.private !== true);
    if (!enough) missing.push(data.private ? 'scope "repo"' : 'scope "public_repo" (or "repo")');
  }
  if (data.permissions?.push !== true) {
    missing.push(
      'contents: write (push branches)',
      'pull requests: write (open pull requests)',
      'issues: write (comment on issues)',
    );
  }
  return { login: user.data.login, missing };
}

function toPull(data: {
  number: number;
  html_url: string;
  head: { ref: string };
  base: { ref: string };
  draft?: boolean;
  body: string | null;
  state: string;
}): GitHubPull {
  return {
    number: data.number,
    htmlUrl: data.html_url,
    head: data.head.ref,
    base: data.base.ref,
    draft: data.draft === true,
    body: data.body ?? '',
    state: data.state === 'closed' ? 'closed' : 'open',
  };
}

function slug(repo: RepoRef): string {
  return `${repo.owner}/${repo.repo}`;
}

/** A GitHubApiError from whatever a request threw, with the token cut out of every text it carries. */
function apiError(request: string, error: unknown, token: string): GitHubApiError {
  if (error instanceof GitHubApiError) return scrubbed(error, token);
  const status = statusOf(error);
  const data = (error as { response?: { data?: unknown } } | null)?.response?.data;
  const said =
    typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string'
      ? (data as { message: string }).message
      : error instanceof Error
        ? error.message
        : String(error);
  return new GitHubApiError(request, status, withoutToken(said, token));
}

function scrubbed(error: GitHubApiError, token: string): GitHubApiError {
  return error.message.includes(token)
    ? new GitHubApiError(error.request, error.status, withoutToken(error.message, token))
    : error;
}

function withoutToken(text: string, token: string): string {
  return token === '' ? text : text.split(token).join('***');
}
