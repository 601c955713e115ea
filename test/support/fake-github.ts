// A loopback fake of the GitHub REST API (the part ralph uses), for tests of the client, of `--from-github` and of
// `--land pr`. It keeps GitHub's JSON field names (snake_case) and answers, so an Octokit client cannot tell it apart.
//
// API:
//   const gh = await startFakeGitHub({ owner: 'acme', repo: 'app', tokens: { 'tok-w': { login: 'ana', permission: 'write' } } });
//   gh.url            the API root to give the client (`apiUrl`/`--github-api`): http://127.0.0.1:PORT[prefix]
//                     (with `prefix: '/api/v3'` it serves as GitHub Enterprise does; GraphQL then at /api/graphql)
//   gh.addIssue({ title, author, body?, labels?, assignee?, milestone?: number, state? })  -> the issue's number
//   gh.addMilestone('v1') -> its number;  gh.addPull({ head, base, title?, body?, draft?, author? }) -> its number
//   gh.issues / gh.pulls / gh.comments / gh.collaborators / gh.tokens   the state, in memory, to arrange and inspect
//                     (issues and pulls share one number space, as on GitHub; a pull is also an issue with
//                     `pull: true`, so its labels and comments are the issue's)
//   gh.rateLimit(...answers)  the next requests, one answer each, get a rate limit instead of their answer:
//                     { kind: 'secondary', retryAfter }  403, retry-after, "You have exceeded a secondary rate limit"
//                     { kind: 'too-many', retryAfter }   429, retry-after
//                     { kind: 'primary', resetIn }       403, x-ratelimit-remaining: 0, x-ratelimit-reset: now+resetIn
//   gh.requests       every request: { method, path (with query), as (the login of the token used, null for none),
//                     auth (an Authorization header was sent), status, body (parsed JSON or null) }
//   gh.close()
// Tokens: each accepted token names its login, its permission on the repository and, for a classic token, its
// scopes (sent back in `x-oauth-scopes`, as GitHub does; fine-grained tokens send none). Any other token: 401.
// Writes: pulls and labels need write (or above); comments need read. Rules faithful to GitHub kept here: the issues
// list includes pull requests (with `pull_request`), defaults to open, created, desc, 30 a page (at most 100) with a
// Link header; a second open pull for the same head and base is a 422; PATCH of a pull does not change `draft`
// (only GraphQL's markPullRequestReadyForReview does, which the fake answers too).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A repository permission level, as GitHub's collaborator API names it. */
export type FakePermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** A token the fake accepts. */
export interface FakeToken {
  login: string;
  permission: FakePermission;
  /** A classic token's scopes (`x-oauth-scopes`); undefined for a fine-grained token. */
  scopes?: string[];
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  author: string;
  labels: string[];
  assignee: string | null;
  milestone: number | null;
  state: 'open' | 'closed';
  /** A pull request's issue (listed with `pull_request` by the issues API). */
  pull: boolean;
  createdAt: string;
}

export interface FakePull {
  number: number;
  nodeId: string;
  title: string;
  body: string | null;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  author: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  author: string;
}

export type RateLimitAnswer =
  | { kind: 'secondary'; retryAfter: number }
  | { kind: 'too-many'; retryAfter: number }
  | { kind: 'primary'; resetIn: number };

export interface LoggedRequest {
  method: string;
  path: string;
  as: string | null;
  auth: boolean;
  status: number;
  body: unknown;
}

export interface FakeGitHubOptions {
  owner: string;
  repo: string;
  /** The tokens it accepts, by token. */
  tokens: Record<string, FakeToken>;
  private?: boolean;
  defaultBranch?: string;
  /** Collaborators' permission levels, by login (others: 'none'). */
  collaborators?: Record<string, FakePermission>;
  /** The API's path prefix: '' as api.github.com, '/api/v3' as GitHub Enterprise. */
  prefix?: string;
}

/** A running fake GitHub. */
export interface FakeGitHub {
  url: string;
  issues: FakeIssue[];
  pulls: FakePull[];
  comments: FakeComment[];
  milestones: { number: number; title: string }[];
  collaborators: Record<string, FakePermission>;
  tokens: Record<string, FakeToken>;
  requests: LoggedRequest[];
  addIssue(issue: {
    title: string;
    author: string;
    body?: string | null;
    labels?: string[];
    assignee?: string;
    milestone?: number;
    state?: 'open' | 'closed';
  }): number;
  addMilestone(title: string): number;
  addPull(pull: {
    head: string;
    base: string;
    title?: string;
    body?: string;
    draft?: boolean;
    author?: string;
  }): number;
  rateLimit(...answers: RateLimitAnswer[]): void;
  close(): Promise<void>;
}

class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

const notFound = () =>
  new Answer(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });

/** Starts a fake GitHub on 127.0.0.1 (a free port). */
export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const rateLimits: RateLimitAnswer[] = [];
  let nextNumber = 1;
  let nextId = 1000;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const created = () => {
    clock += 60_000;
    return new Date(clock).toISOString();
  };
  let root = '';
  const gh: FakeGitHub = {
    url: '',
    issues: [],
    pulls: [],
    comments: [],
    milestones: [],
    collaborators: { ...(options.collaborators ?? {}) },
    tokens: options.tokens,
    requests: [],
    addIssue(issue) {
      const number = nextNumber++;
      gh.issues.push({
        number,
        title: issue.title,
        body: issue.body === undefined ? '' : issue.body,
        author: issue.author,
        labels: issue.labels ?? [],
        assignee: issue.assignee ?? null,
        milestone: issue.milestone ?? null,
        state: issue.state ?? 'open',
        pull: false,
        createdAt: created(),
      });
      return number;
    },
    addMilestone(title) {
      const number = gh.milestones.length + 1;
      gh.milestones.push({ number, title });
      return number;
    },
    addPull(pull) {
      const number = nextNumber++;
      const author = pull.author ?? 'someone';
      gh.pulls.push({
        number,
        nodeId: `PR_${number}`,
        title: pull.title ?? pull.head,
        body: pull.body ?? null,
        head: pull.head,
        base: pull.base,
        draft: pull.draft ?? false,
        state: 'open',
        author,
      });
      gh.issues.push({
        number,
        title: pull.title ?? pull.head,
        body: pull.body ?? null,
        author,
        labels: [],
        assignee: null,
        milestone: null,
        state: 'open',
        pull: true,
        createdAt: created(),
      });
      return number;
    },
    rateLimit(...answers) {
      rateLimits.push(...answers);
    },
    close: () => new Promise((settle) => server.close(() => settle())),
  };

  const web = () => root;
  const repoPath = `${options.owner}/${options.repo}`;
  const user = (login: string) => ({ login, id: idOf(login), type: 'User', html_url: `${web()}/${login}` });
  const issueJson = (issue: FakeIssue) => ({
    id: 100_000 + issue.number,
    node_id: `I_${issue.number}`,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    user: user(issue.author),
    labels: issue.labels.map((name) => ({ id: idOf(name), name, color: 'ededed' })),
    assignee: issue.assignee === null ? null : user(issue.assignee),
    assignees: issue.assignee === null ? [] : [user(issue.assignee)],
    milestone: issue.milestone === null ? null : milestoneJson(issue.milestone),
    state: issue.state,
    comments: gh.comments.filter((c) => c.issue === issue.number).length,
    created_at: issue.createdAt,
    updated_at: issue.createdAt,
    url: `${root}${prefix}/repos/${repoPath}/issues/${issue.number}`,
    html_url: `${web()}/${repoPath}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
    ...(issue.pull
      ? {
          pull_request: {
            url: `${root}${prefix}/repos/${repoPath}/pulls/${issue.number}`,
            html_url: `${web()}/${repoPath}/pull/${issue.number}`,
          },
        }
      : {}),
  });
  const milestoneJson = (number: number) => {
    const m = gh.milestones.find((x) => x.number === number);
    return { number, title: m?.title ?? String(number), state: 'open' };
  };
  const pullJson = (pull: FakePull) => {
    const issue = gh.issues.find((i) => i.number === pull.number);
    return {
      id: 200_000 + pull.number,
      node_id: pull.nodeId,
      number: pull.number,
      title: pull.title,
      body: pull.body,
      state: pull.state,
      draft: pull.draft,
      user: user(pull.author),
      labels: (issue?.labels ?? []).map((name) => ({ id: idOf(name), name, color: 'ededed' })),
      head: { ref: pull.head, label: `${options.owner}:${pull.head}`, repo: { full_name: repoPath } },
      base: { ref: pull.base, label: `${options.owner}:${pull.base}`, repo: { full_name: repoPath } },
      url: `${root}${prefix}/repos/${repoPath}/pulls/${pull.number}`,
      html_url: `${web()}/${repoPath}/pull/${pull.number}`,
    };
  };
  const commentJson = (c: FakeComment) => ({
    id: c.id,
    body: c.body,
    user: user(c.author),
    html_url: `${web()}/${repoPath}/issues/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${root}${prefix}/repos/${repoPath}/issues/${c.issue}`,
  });

  /** One page of `items` as GitHub pages it: per_page (default 30, at most 100), page, and a Link header. */
  const paged = (url: URL, items: unknown[]): Answer => {
    const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const link = (p: number, rel: string) => {
      const next = new URL(url);
      next.searchParams.set('page', String(p));
      next.searchParams.set('per_page', String(perPage));
      return `<${root}${next.pathname}${next.search}>; rel="${rel}"`;
    };
    const links = [
      ...(page > 1 ? [link(page - 1, 'prev'), link(1, 'first')] : []),
      ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
    ];
    return new Answer(
      200,
      items.slice((page - 1) * perPage, page * perPage),
      links.length > 0 ? { link: links.join(', ') } : {},
    );
  };

  const can = (token: FakeToken, need: FakePermission) => rank(token.permission) >= rank(need);
  const forbidden = () =>
    new Answer(403, {
      message: 'Resource not accessible by personal access token',
      documentation_url: 'https://docs.github.com/rest',
      status: '403',
    });
  const invalid = (message: string) =>
    new Answer(422, {
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message }],
    });

  const route = (method: string, url: URL, token: FakeToken, body: unknown): Answer => {
    const path = url.pathname;
    if (method === 'GET' && path === '/user') return new Answer(200, user(token.login));
    if (method === 'POST' && path === '/graphql') return graphql(token, body);
    const repoMatch = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (repoMatch === null || `${repoMatch[1]}/${repoMatch[2]}` !== repoPath) return notFound();
    if (options.private === true && !can(token, 'read')) return notFound();
    const rest = repoMatch[3] ?? '';
    const q = url.searchParams;
    if (method === 'GET' && rest === '') {
      const p = token.permission;
      return new Answer(200, {
        id: 1,
        name: options.repo,
        full_name: repoPath,
        owner: user(options.owner),
        private: options.private === true,
        default_branch: options.defaultBranch ?? 'main',
        html_url: `${web()}/${repoPath}`,
        permissions: {
          admin: p === 'admin',
          maintain: rank(p) >= rank('maintain'),
          push: rank(p) >= rank('write'),
          triage: rank(p) >= rank('triage'),
          pull: rank(p) >= rank('read'),
        },
      });
    }
    if (method === 'GET' && rest === '/issues') {
      const state = q.get('state') ?? 'open';
      const labels = (q.get('labels') ?? '').split(',').filter((l) => l !== '');
      const assignee = q.get('assignee');
      const milestone = q.get('milestone');
      const direction = q.get('direction') ?? 'desc';
      const found = gh.issues
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((l) => i.labels.includes(l)))
        .filter((i) =>
          assignee === null || assignee === '*'
            ? assignee === null || i.assignee !== null
            : assignee === 'none'
              ? i.assignee === null
              : i.assignee === assignee,
        )
        .filter((i) =>
          milestone === null
            ? true
            : milestone === '*'
              ? i.milestone !== null
              : milestone === 'none'
                ? i.milestone === null
                : i.milestone === Number(milestone),
        )
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) * (direction === 'asc' ? 1 : -1));
      return paged(url, found.map(issueJson));
    }
    if (method === 'GET' && rest === '/milestones') {
      return paged(
        url,
        gh.milestones.map((m) => milestoneJson(m.number)),
      );
    }
    const commentsMatch = /^\/issues\/(\d+)\/comments$/.exec(rest);
    if (commentsMatch !== null) {
      const number = Number(commentsMatch[1]);
      if (!gh.issues.some((i) => i.number === number)) return notFound();
      if (method === 'GET') return paged(url, gh.comments.filter((c) => c.issue === number).map(commentJson));
      if (method === 'POST') {
        const text = (body as { body?: unknown } | null)?.body;
        if (typeof text !== 'string') return invalid('body is required');
        const comment = { id: nextId++, issue: number, body: text, author: token.login };
        gh.comments.push(comment);
        return new Answer(201, commentJson(comment));
      }
    }
    const labelsMatch = /^\/issues\/(\d+)\/labels$/.exec(rest);
    if (labelsMatch !== null && method === 'POST') {
      const issue = gh.issues.find((i) => i.number === Number(labelsMatch[1]));
      if (issue === undefined) return notFound();
      if (!can(token, 'triage')) return forbidden();
      const names = Array.isArray(body) ? body : (body as { labels?: unknown } | null)?.labels;
      if (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))
        return invalid('labels must be strings');
      for (const name of names as string[]) if (!issue.labels.includes(name)) issue.labels.push(name);
      return new Answer(
        200,
        issue.labels.map((name) => ({ id: idOf(name), name, color: 'ededed' })),
      );
    }
    const permissionMatch = /^\/collaborators\/([^/]+)\/permission$/.exec(rest);
    if (permissionMatch !== null && method === 'GET') {
      const login = decodeURIComponent(permissionMatch[1] ?? '');
      const role = gh.collaborators[login] ?? 'none';
      // `permission` folds maintain into write and triage into read; `role_name` keeps them.
      const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      return new Answer(200, { permission, role_name: role, user: user(login) });
    }
    if (rest === '/pulls' && method === 'GET') {
      const state = q.get('state') ?? 'open';
      const head = q.get('head');
      const base = q.get('base');
      const found = gh.pulls
        .filter((p) => state === 'all' || p.state === state)
        .filter((p) => head === null || `${options.owner}:${p.head}` === head)
        .filter((p) => base === null || p.base === base)
        .sort((a, b) => b.number - a.number);
      return paged(url, found.map(pullJson));
    }
    if (rest === '/pulls' && method === 'POST') {
      if (!can(token, 'write')) return forbidden();
      const b = (body ?? {}) as {
        title?: unknown;
        head?: unknown;
        base?: unknown;
        body?: unknown;
        draft?: unknown;
      };
      if (typeof b.head !== 'string' || typeof b.base !== 'string' || typeof b.title !== 'string') {
        return invalid('title, head and base are required');
      }
      const head = b.head.includes(':') ? b.head.slice(b.head.indexOf(':') + 1) : b.head;
      if (gh.pulls.some((p) => p.state === 'open' && p.head === head && p.base === b.base)) {
        return invalid(`A pull request already exists for ${options.owner}:${head}.`);
      }
      const number = gh.addPull({
        head,
        base: b.base,
        title: b.title,
        ...(typeof b.body === 'string' ? { body: b.body } : {}),
        draft: b.draft === true,
        author: token.login,
      });
      return new Answer(201, pullJson(pullOf(number)));
    }
    const pullMatch = /^\/pulls\/(\d+)$/.exec(rest);
    if (pullMatch !== null) {
      const pull = gh.pulls.find((p) => p.number === Number(pullMatch[1]));
      if (pull === undefined) return notFound();
      if (method === 'GET') return new Answer(200, pullJson(pull));
      if (method === 'PATCH') {
        if (!can(token, 'write')) return forbidden();
        const b = (body ?? {}) as { title?: unknown; body?: unknown; state?: unknown; base?: unknown };
        const issue = gh.issues.find((i) => i.number === pull.number);
        if (typeof b.title === 'string') pull.title = b.title;
        if (typeof b.body === 'string') pull.body = b.body;
        if (typeof b.base === 'string') pull.base = b.base;
        if (b.state === 'open' || b.state === 'closed') pull.state = b.state;
        if (issue !== undefined)
          Object.assign(issue, { title: pull.title, body: pull.body, state: pull.state });
        return new Answer(200, pullJson(pull));
      }
    }
    return notFound();
  };

  const pullOf = (number: number): FakePull => {
    const pull = gh.pulls.find((p) => p.number === number);
    if (pull === undefined) throw new Error(`no pull ${number}`);
    return pull;
  };

  const graphql = (token: FakeToken, body: unknown): Answer => {
    const { query, variables } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
    if (typeof query !== 'string' || !query.includes('markPullRequestReadyForReview')) {
      return new Answer(200, {
        errors: [{ message: 'The fake answers only markPullRequestReadyForReview' }],
      });
    }
    const id = variables?.id ?? /pullRequestId:\s*"([^"]+)"/.exec(query)?.[1];
    const pull = gh.pulls.find((p) => p.nodeId === id);
    if (pull === undefined) {
      return new Answer(200, {
        data: null,
        errors: [
          { type: 'NOT_FOUND', message: `Could not resolve to a node with the global id of '${String(id)}'` },
        ],
      });
    }
    if (!can(token, 'write')) {
      return new Answer(200, {
        data: null,
        errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by personal access token' }],
      });
    }
    pull.draft = false;
    return new Answer(200, {
      data: { markPullRequestReadyForReview: { pullRequest: { number: pull.number, isDraft: false } } },
    });
  };

  const rateLimited = (answer: RateLimitAnswer): Answer => {
    if (answer.kind === 'secondary') {
      return new Answer(
        403,
        {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
          documentation_url:
            'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        },
        { 'retry-after': String(answer.retryAfter) },
      );
    }
    if (answer.kind === 'too-many') {
      return new Answer(429, { message: 'Too Many Requests' }, { 'retry-after': String(answer.retryAfter) });
    }
    return new Answer(
      403,
      {
        message:
          "API rate limit exceeded for user. (But here's the good news: Authenticated requests get a higher rate limit.)",
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits',
      },
      {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + answer.resetIn),
      },
    );
  };

  const answer = (
    request: IncomingMessage,
    text: string,
  ): { answer: Answer; as: string | null; body: unknown } => {
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      return { answer: new Answer(400, { message: 'Problems parsing JSON' }), as: null, body: text };
    }
    const authorization = request.headers.authorization ?? '';
    const presented = /^(?:token|bearer)\s+(.+)$/i.exec(authorization)?.[1];
    const token = presented === undefined ? undefined : gh.tokens[presented];
    const as = token?.login ?? null;
    const limit = rateLimits.shift();
    if (limit !== undefined) return { answer: rateLimited(limit), as, body };
    if (token === undefined) {
      return {
        answer: new Answer(401, {
          message: 'Bad credentials',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        }),
        as,
        body,
      };
    }
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    let path = url.pathname;
    // GitHub Enterprise serves REST at /api/v3 and GraphQL at /api/graphql.
    if (prefix !== '' && path === `${prefix.replace(/\/v3$/, '')}/graphql`) path = '/graphql';
    else if (prefix !== '') {
      if (!path.startsWith(`${prefix}/`)) return { answer: notFound(), as, body };
      path = path.slice(prefix.length);
    }
    url.pathname = path;
    const result = route(request.method ?? 'GET', url, token, body);
    const scopes: Record<string, string> =
      token.scopes === undefined ? {} : { 'x-oauth-scopes': token.scopes.join(', ') };
    return { answer: new Answer(result.status, result.body, { ...scopes, ...result.headers }), as, body };
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const { answer: a, as, body } = answer(request, text);
      gh.requests.push({
        method: request.method ?? 'GET',
        path: request.url ?? '',
        as,
        auth: request.headers.authorization !== undefined,
        status: a.status,
        body,
      });
      response
        .writeHead(a.status, {
          'content-type': 'application/json; charset=utf-8',
          'x-github-media-type': 'github.v3; format=json',
          ...a.headers,
        })
        .end(a.status === 204 ? undefined : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((settle) => server.listen(0, '127.0.0.1', () => settle()));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gh.url = `${root}${prefix}`;
  return gh;
}

const levels: FakePermission[] = ['none', 'read', 'triage', 'write', 'maintain', 'admin'];
function rank(permission: FakePermission): number {
  return levels.indexOf(permission);
}

function idOf(text: string): number {
  let hash = 7;
  for (const c of text) hash = (hash * 31 + (c.codePointAt(0) ?? 0)) % 1_000_000;
  return hash;
}
