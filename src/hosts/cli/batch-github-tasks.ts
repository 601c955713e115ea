// `ralph batch --from-github OWNER/REPO --label ralph`: the batch's tasks from the repository's open issues instead
// of a tasks file. Who may write tasks is asked before any issue is taken; the taken and skipped issues are said
// before anything starts; and once the client holds the token, the token goes from this process's environment, so
// no agent, verify command, notifier or git this batch starts inherits it.
import type { BatchTask } from '../../contract/batch-tasks.js';
import { checkTaskOrder, TasksFileError } from '../../contract/batch-tasks.js';
import { RalphError } from '../../contract/errors.js';
import {
  filterWithoutGitHub,
  githubUnreadable,
  githubWaitLine,
  limitProblem,
  noAuthorListed,
  noIssueTaken,
  repoRefProblem,
  skippedHeading,
  skippedLine,
  takenHeading,
  takenLine,
} from '../../contract/github-task-messages.js';
import {
  type GitHubApi,
  GitHubApiError,
  type GitHubIssue,
  type IssueFilter,
  type RepoRef,
} from '../../github/github-api.js';
import { issueTasks, type TaskAuthors } from '../../github/issue-tasks.js';
import { parseRepoRef } from '../../github/repo-ref.js';
import { listedAuthors, writingAuthors } from '../../github/task-authors.js';

/** The options of `ralph batch` that take its tasks from GitHub issues. */
export interface GitHubTasksOptions {
  /** `OWNER/REPO`. */
  fromGithub?: string;
  /** Labels, comma-separated; an issue must carry all of them. */
  label?: string;
  assignee?: string;
  milestone?: string;
  limit?: string;
  /** Logins, comma-separated; default: the people with write access. */
  fromAuthors?: string;
  /** GitHub Enterprise's API root. */
  githubApi?: string;
  /** With `--land pr`: the repository the pull requests are opened on (`OWNER/REPO`). */
  githubRepo?: string;
}

/** Reaches GitHub: the client for the API root (default api.github.com), with the host's token. */
export type GitHubConnect = (
  apiUrl: string | undefined,
  onWait: (wait: { seconds: number; why: string }) => void,
) => Promise<GitHubApi>;

/** The environment variables a GitHub token is given in: none reaches a process a batch from GitHub starts. */
export const GITHUB_TOKEN_VARIABLES = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GH_ENTERPRISE_TOKEN',
] as const;

/**
 * Takes every GitHub token variable out of `env` (this process's by default). Every child a batch starts — agents,
 * evaluators, resolvers, verify commands, notifiers, git — inherits `process.env` (or a copy of it made later), so
 * taking the token out here, once the client holds it, keeps it from all of them at once.
 */
export function forgetGitHubTokens(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of GITHUB_TOKEN_VARIABLES) delete env[name];
}

/** The command that reads the issues (or refuses a GitHub option), as its refusals name it. */
export type GitHubTasksCommand = 'ralph batch' | 'ralph submit --batch' | 'ralph submit' | 'ralph worker';

const refusal = (command: GitHubTasksCommand, message: string): RalphError =>
  new RalphError({ code: 'refused', message: `${command}: ${message}` });

/** `--from-github OWNER/REPO` as a repository, or a refusal. */
export function repoRefOf(text: string, command: GitHubTasksCommand = 'ralph batch'): RepoRef {
  const ref = parseRepoRef(text);
  if (ref === null) throw refusal(command, repoRefProblem(text));
  return ref;
}

/** `--github-api URL`: an http(s) URL with no credential in it, or a refusal. */
export function apiUrlOf(text: string | undefined, command: GitHubTasksCommand): string | undefined {
  if (text === undefined) return undefined;
  const refuse = (message: string) => refusal(command, message);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(`--github-api must be a URL (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(`--github-api must be an http(s) URL (got ${JSON.stringify(url.protocol)})`);
  if (url.username !== '' || url.password !== '')
    throw refuse('--github-api must carry no credential: the token comes from GITHUB_TOKEN, GH_TOKEN or gh');
  return text;
}

/** The issue filter of the command line, or a refusal. */
function filterOf(options: GitHubTasksOptions, command: GitHubTasksCommand): IssueFilter {
  const refuse = (message: string) => refusal(command, message);
  const labels = (options.label ?? '')
    .split(',')
    .map((label) => label.trim())
    .filter((label) => label !== '');
  // Every open issue of a repository as a task is never what is meant: a label marks the issues that are tasks.
  if (labels.length === 0)
    throw refuse('--from-github needs --label NAME: the label that marks issues as tasks');
  let limit: number | undefined;
  if (options.limit !== undefined) {
    limit = /^\d+$/.test(options.limit.trim()) ? Number(options.limit.trim()) : Number.NaN;
    if (!Number.isSafeInteger(limit) || limit < 1) throw refuse(limitProblem(options.limit));
  }
  return {
    labels,
    ...(options.assignee === undefined ? {} : { assignee: options.assignee }),
    ...(options.milestone === undefined ? {} : { milestone: options.milestone }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * Refuses the GitHub options without `--from-github` (they would be ignored, silently); `--github-api` also serves
 * the pull requests of `--land pr` (`pulls`).
 */
export function assertNoGitHubFilter(
  options: GitHubTasksOptions,
  command: GitHubTasksCommand = 'ralph batch',
  pulls = false,
): void {
  const given: [keyof GitHubTasksOptions, string][] = [
    ['label', '--label'],
    ['assignee', '--assignee'],
    ['milestone', '--milestone'],
    ['limit', '--limit'],
    ['fromAuthors', '--from-authors'],
    ...(pulls ? [] : ([['githubApi', '--github-api']] as [keyof GitHubTasksOptions, string][])),
  ];
  for (const [key, option] of given)
    if (options[key] !== undefined) throw refusal(command, filterWithoutGitHub(option));
}

/**
 * The batch's tasks from the open issues of `--from-github` that match the filter and whose authors may write
 * tasks; the taken and skipped issues said with `say` first. Everything is checked before GitHub is asked; a batch
 * with no task taken is refused. The token goes from the environment once the client holds it.
 */
export async function readGitHubTasks(
  options: GitHubTasksOptions & { fromGithub: string },
  say: (line: string) => void,
  connect: GitHubConnect,
  command: GitHubTasksCommand = 'ralph batch',
): Promise<BatchTask[]> {
  const refuse = (message: string) => refusal(command, message);
  const repo = repoRefOf(options.fromGithub, command);
  const filter = filterOf(options, command);
  const apiUrl = apiUrlOf(options.githubApi, command);
  const listed = options.fromAuthors === undefined ? undefined : listedAuthors(options.fromAuthors);
  if (listed === null) throw refuse(noAuthorListed());
  const name = `${repo.owner}/${repo.repo}`;
  const api = await connect(apiUrl, (wait) => say(githubWaitLine(wait.seconds, wait.why)));
  forgetGitHubTokens();
  let issues: GitHubIssue[];
  let authors: TaskAuthors;
  try {
    issues = await api.listIssues(repo, filter);
    authors =
      listed ??
      (await writingAuthors(
        api,
        repo,
        issues.map((issue) => issue.author),
      ));
  } catch (error) {
    // Nothing started yet: GitHub's answer (never the token) is the refusal's reason.
    if (error instanceof GitHubApiError) throw refuse(githubUnreadable(name, error.message));
    throw error;
  }
  const { tasks, skipped } = issueTasks(issues, authors);
  if (tasks.length > 0) say(takenHeading(tasks.length, name));
  for (const { task, issue } of tasks) say(takenLine(task.id, issue.number, issue.title, task.after));
  if (skipped.length > 0) say(skippedHeading(skipped.length));
  for (const issue of skipped) say(skippedLine(issue.number, issue.title, issue.why));
  if (tasks.length === 0) throw refuse(noIssueTaken(name, issues.length));
  try {
    return checkTaskOrder(tasks.map(({ task }) => task));
  } catch (error) {
    // Issues that depend on each other in a cycle: no order runs them, and none is guessed.
    if (error instanceof TasksFileError) throw refuse(`the issues cannot be a batch: ${error.message}`);
    throw error;
  }
}
