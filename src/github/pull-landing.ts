// A task of a batch landed as a pull request (`ralph batch --land pr`): its branch pushed, a pull request opened
// against the target (or, stacked, against the branch of the task it comes after), and its issue told the outcome.
// Only a task that passed gets a pull request marked ready; any other is a draft labelled `ralph: needs-review`, or
// only a comment when it left no branch. A task's branch on GitHub is the same in every batch that runs it
// (`pullBranchOf`), and each pull request and comment carries a marker, so a re-run — of this batch or a later one —
// updates what it left rather than open or say it twice; and it overwrites on that branch only the commit it pushed
// itself, never a person's.
import { createHash } from 'node:crypto';
import {
  issueComment,
  issueCommentMarker,
  NEEDS_REVIEW_LABEL,
  type PullReport,
  pullBody,
  pullMarker,
  pushedCommitIn,
} from '../contract/pull-messages.js';
import type { GitHubApi, GitHubPull, RepoRef } from './github-api.js';

export { pullBody } from '../contract/pull-messages.js';

/** A task to land as a pull request: what its body says, its branch (null: none with changes) and where it goes. */
export interface PullTask extends PullReport {
  /** The task's local branch, e.g. `ralph/<batch-id>/<task-id>`; null when it left no branch with changes. */
  branch: string | null;
  /** The branch the pull request goes into: the target, or (stacked) the branch of the task it comes after. */
  base: string;
  /** The pull request's title. */
  title: string;
}

/** What landing a task as a pull request did. */
export interface PullLanded {
  /** The task's pull request (opened, found again, or left); null when only the issue was commented. */
  pull: GitHubPull | null;
  /**
   * `opened` a new one, `updated` the one a former run opened, `left` one a person decided on already (closed, or
   * ready for review while this run did not pass: its work is not overwritten), `none` when there was no branch.
   */
  action: 'opened' | 'updated' | 'left' | 'none';
  /** The URL of the comment left on the issue; null when none was left (no issue, or said already). */
  commentUrl: string | null;
}

/** How a task's pull request reaches GitHub: the API, the repository, the token's login and the push of a branch. */
export interface LandingDeps {
  api: GitHubApi;
  repo: RepoRef;
  /** The login the token acts as: only its own comments count as said already. */
  login: string;
  /**
   * Pushes the local branch `from` to the branch `to` of the repository GitHub serves, only if `to` is at `lease`
   * there (null: only if `to` is not there): the CLI's `gitPusher`, `git push --force-with-lease`. Rejects otherwise.
   */
  push(from: string, to: string, lease: string | null): Promise<void>;
}

/** The issue a task came from: `gh-<number>` (tasks from `--from-github`), else none. */
export const issueOfTask = (taskId: string): number | null => {
  const match = /^gh-(\d+)$/.exec(taskId);
  return match === null ? null : Number(match[1]);
};

/** The hex digits of a task's objective that tell two tasks files' `task-1` apart in their branch's name. */
const objectiveTag = (objective: string): string =>
  createHash('sha256').update(objective).digest('hex').slice(0, 8);

/**
 * The branch on GitHub a task's pull request comes from, the same in every batch that runs the task: `ralph/gh-7`
 * for the task of issue 7 (its text may be edited; it is still the issue's task), else `ralph/<task-id>-<8 hex of
 * the objective>` (a tasks file's `task-1` is another task in another file).
 */
export function pullBranchOf(taskId: string, objective: string): string {
  return /^gh-\d+$/.test(taskId) ? `ralph/${taskId}` : `ralph/${taskId}-${objectiveTag(objective)}`;
}

/**
 * The branch a task's pull request goes into: with `stack`, the branch on GitHub of the first task it comes `after`
 * that has a pull request of its own (`pulledBranches`), else the target.
 */
export function pullBase(
  after: readonly string[],
  pulledBranches: ReadonlyMap<string, string>,
  target: string,
  stack: boolean,
): string {
  if (!stack) return target;
  for (const id of after) {
    const branch = pulledBranches.get(id);
    if (branch !== undefined) return branch;
  }
  return target;
}

/** The pull request a former run (of any batch) opened for the task: one of its branch's, carrying its marker. */
export async function formerPull(
  deps: Pick<LandingDeps, 'api' | 'repo'>,
  pullBranch: string,
): Promise<GitHubPull | undefined> {
  const marker = pullMarker(pullBranch);
  const pulls = await deps.api.pullsWithHead(deps.repo, pullBranch, 'all');
  return pulls.find((pull) => pull.body.includes(marker));
}

/**
 * Whether a former run's pull request is one a person has decided on or is deciding on: closed (merged or declined),
 * or open and ready for review. Its task is not run again (`ralph batch --land pr` says so and leaves it).
 */
export const isDecided = (pull: GitHubPull): boolean => pull.state === 'closed' || !pull.draft;

/** Opens (or updates) the task's pull request; ready only when it passed. */
async function landPull(deps: LandingDeps, task: PullTask, branch: string): Promise<PullLanded> {
  const passed = task.outcome === 'passed';
  const former = await formerPull(deps, task.pullBranch);
  // Closed, or ready and under review while this run did not pass: a person's call stands, and their branch too.
  if (former !== undefined && (former.state === 'closed' || (!former.draft && !passed)))
    return { pull: former, action: 'left', commentUrl: null };
  // Overwrites only the commit ralph itself pushed last (its body says which): a person's commits there stay.
  await deps.push(branch, task.pullBranch, former === undefined ? null : pushedCommitIn(former.body));
  const body = pullBody(task);
  let pull: GitHubPull;
  let action: PullLanded['action'];
  if (former === undefined) {
    pull = await deps.api.openPull(deps.repo, {
      head: task.pullBranch,
      base: task.base,
      title: task.title,
      body,
      draft: !passed,
    });
    action = 'opened';
  } else {
    pull = await deps.api.updatePull(
      deps.repo,
      former.number,
      passed && former.draft ? { body, draft: false } : { body },
    );
    action = 'updated';
  }
  if (!passed) await deps.api.addLabels(deps.repo, pull.number, [NEEDS_REVIEW_LABEL]);
  return { pull, action, commentUrl: null };
}

/** Comments the outcome on the task's issue, unless the token's login said the same outcome for it before. */
async function commentOnce(
  deps: LandingDeps,
  task: PullTask,
  pullUrl: string | null,
): Promise<string | null> {
  if (task.issue === null) return null;
  const marker = issueCommentMarker(task.pullBranch, task.outcome);
  const said = await deps.api.comments(deps.repo, task.issue);
  // Anyone may comment on an issue: a marker in another's comment must not silence ralph's.
  if (said.some((comment) => comment.author === deps.login && comment.body.includes(marker))) return null;
  return deps.api.comment(deps.repo, task.issue, issueComment(task, pullUrl));
}

/**
 * Lands one task as a pull request: pushes its branch and opens (or, re-run, updates) its pull request — ready only
 * when it passed, else a draft labelled `ralph: needs-review` — then comments the outcome on its issue once. A task
 * with no branch gets only the comment; a pull request a person closed, or has ready for review while this run did
 * not pass, is left as it is.
 */
export async function landAsPull(deps: LandingDeps, task: PullTask): Promise<PullLanded> {
  const landed: PullLanded =
    task.branch === null
      ? { pull: null, action: 'none', commentUrl: null }
      : await landPull(deps, task, task.branch);
  if (landed.action === 'left') return landed;
  return { ...landed, commentUrl: await commentOnce(deps, task, landed.pull?.htmlUrl ?? null) };
}
