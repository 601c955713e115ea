// What ralph asks of GitHub, as one narrow interface: the issues it takes as tasks, who may write them, and the pull
// requests and comments it leaves. `createGitHubApi` (client.ts) implements it with Octokit; tests of the callers may
// pass an in-memory one. Every value read through it crossed a boundary (an issue's text is anyone's): its callers
// check what they use.

/** An issue as ralph reads it (pull requests, which the issues API lists too, are left out by the client). */
export interface GitHubIssue {
  number: number;
  title: string;
  /** The body, '' when it has none. */
  body: string;
  /** The author's login. */
  author: string;
  labels: string[];
  htmlUrl: string;
}

/** What a filter of open issues names (the CLI's `--label`, `--assignee`, `--milestone`, `--limit`). */
export interface IssueFilter {
  labels: string[];
  assignee?: string;
  /** A milestone's number or title. */
  milestone?: string;
  /** At most this many issues (oldest first). */
  limit?: number;
}

/** A pull request as ralph finds or opens it. */
export interface GitHubPull {
  number: number;
  htmlUrl: string;
  head: string;
  base: string;
  draft: boolean;
  body: string;
  state: 'open' | 'closed';
}

/** The repository ralph works on: `owner/name`. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** A repository permission level as GitHub's collaborator API names it. */
export type RepoPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** What ralph needs of GitHub. Each method rejects with a `GitHubApiError` naming the request and GitHub's answer. */
export interface GitHubApi {
  /** The open issues that match the filter, oldest first. */
  listIssues(repo: RepoRef, filter: IssueFilter): Promise<GitHubIssue[]>;
  /** A user's permission on the repository ('none' when they are not a collaborator). */
  permissionOf(repo: RepoRef, login: string): Promise<RepoPermission>;
  /**
   * What the token may do on the repository: its own login, and whether it can read issues, push branches, open pull
   * requests and comment — asked before anything starts, so a token without them is refused, naming what is missing.
   */
  tokenAccess(repo: RepoRef): Promise<{ login: string; missing: string[] }>;
  /** The open (or, with `state: 'all'`, any) pull requests whose head is `branch` of the repository itself. */
  pullsWithHead(repo: RepoRef, branch: string, state?: 'open' | 'all'): Promise<GitHubPull[]>;
  openPull(
    repo: RepoRef,
    pull: { head: string; base: string; title: string; body: string; draft: boolean },
  ): Promise<GitHubPull>;
  updatePull(repo: RepoRef, number: number, change: { body?: string; draft?: false }): Promise<GitHubPull>;
  addLabels(repo: RepoRef, issueNumber: number, labels: string[]): Promise<void>;
  /** Comments on an issue (or a pull request: GitHub's pulls are issues); returns the comment's URL. */
  comment(repo: RepoRef, issueNumber: number, body: string): Promise<string>;
  /** The comments already on an issue, for finding ralph's own by its marker (re-runs comment once). */
  comments(repo: RepoRef, issueNumber: number): Promise<{ body: string; author: string }[]>;
}

/** A failed request to GitHub: which one, the status, and GitHub's message (never the token). */
export class GitHubApiError extends Error {
  constructor(
    readonly request: string,
    readonly status: number | null,
    message: string,
  ) {
    super(`GitHub ${request}: ${status === null ? '' : `${status} `}${message}`);
    this.name = 'GitHubApiError';
  }
}
