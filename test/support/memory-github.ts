import type { GitHubApi, GitHubPull, RepoRef } from '../../src/github/github-api.js';

/** An in-memory GitHub: the pulls, labels and comments ralph left, and the branches it pushed. */
export class MemoryGitHub implements GitHubApi {
  pulls: GitHubPull[] = [];
  labels = new Map<number, string[]>();
  issueComments = new Map<number, string[]>();
  pushed: string[] = [];
  /** The branches on the remote and the commit each is at (for a push's lease). */
  branches = new Map<string, string>();
  /** The commit each local branch is at, when a test sets one. */
  heads = new Map<string, string>();
  /** Each issue's comments' authors, in order, where a test set them (else ralph). */
  commentAuthors = new Map<number, string[]>();
  async listIssues() {
    return [];
  }
  async permissionOf() {
    return 'write' as const;
  }
  async tokenAccess(): Promise<{ login: string; missing: string[] }> {
    return { login: 'ralph', missing: [] };
  }
  async pullsWithHead(_repo: RepoRef, branch: string, state: 'open' | 'all' = 'open') {
    return this.pulls.filter((p) => p.head === branch && (state === 'all' || p.state === 'open'));
  }
  async openPull(
    _repo: RepoRef,
    pull: { head: string; base: string; title: string; body: string; draft: boolean },
  ) {
    const number = 100 + this.pulls.length;
    const opened: GitHubPull = {
      ...pull,
      number,
      htmlUrl: `https://github.test/o/r/pull/${number}`,
      state: 'open',
    };
    this.pulls.push(opened);
    return opened;
  }
  async updatePull(_repo: RepoRef, number: number, change: { body?: string; draft?: false }) {
    const pull = this.pulls.find((p) => p.number === number);
    if (pull === undefined) throw new Error(`no pull ${number}`);
    Object.assign(pull, change);
    return pull;
  }
  async addLabels(_repo: RepoRef, issue: number, labels: string[]) {
    this.labels.set(issue, [...new Set([...(this.labels.get(issue) ?? []), ...labels])]);
  }
  async comment(_repo: RepoRef, issue: number, body: string) {
    const list = this.issueComments.get(issue) ?? [];
    list.push(body);
    this.issueComments.set(issue, list);
    return `https://github.test/o/r/issues/${issue}#c${list.length}`;
  }
  async comments(_repo: RepoRef, issue: number) {
    const authors = this.commentAuthors.get(issue) ?? [];
    return (this.issueComments.get(issue) ?? []).map((body, i) => ({ body, author: authors[i] ?? 'ralph' }));
  }
}
