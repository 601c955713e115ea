// A task of a batch landed as a pull request (`ralph batch --land pr`): its branch pushed, a pull request opened
// against the target (or, stacked, against the branch of the task it comes after), and its issue told the outcome.
// Only a task that passed gets a pull request marked ready; any other is a draft labelled `ralph: needs-review`, or
// only a comment when it left no branch. Each pull request and comment carries a marker, so a re-run updates what it
// left rather than open or say it twice.
import {
  issueComment,
  issueCommentMarker,
  NEEDS_REVIEW_LABEL,
  type PullReport,
  pullBody,
  pullMarker,
} from '../contract/pull-messages.js';
import type { GitHubApi, GitHubPull, RepoRef } from './github-api.js';

export { pullBody } from '../contract/pull-messages.js';

/** A task to land as a pull request: what its body says, its branch (null: none with changes) and where it goes. */
export interface PullTask extends PullReport {
  /** The task's branch, e.g. `ralph/<batch-id>/<task-id>`; null when it left no branch with changes. */
  branch: string | null;
  /** The branch the pull request goes into: the target, or (stacked) the branch of the task it comes after. */
  base: string;
  /** The pull request's title. */
  title: string;
}

/** What landing a task as a pull request did. */
export interface PullLanded {
  /** The task's pull request (opened or found again); null when only the issue was commented. */
  pull: GitHubPull | null;
  /** `opened` a new one, `updated` the one a former run opened, `none` when there was no branch to open one from. */
  action: 'opened' | 'updated' | 'none';
  /** The URL of the comment left on the issue; null when none was left (no issue, or said already). */
  commentUrl: string | null;
}

/** How a task's pull request reaches GitHub: the API, the repository, and the push of its branch. */
export interface LandingDeps {
  api: GitHubApi;
  repo: RepoRef;
  /** Pushes `branch` to the repository GitHub serves (the CLI's `gitPusher`: `git push <remote> <branch>`). */
  push(branch: string): Promise<void>;
}

/**
 * The branch a task's pull request goes into: with `stack`, the branch of the first task it comes `after` that has a
 * pull request of its own (`pulledBranches`), else the target.
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

/** The pull request a former run opened for this task: one of its head branch's, carrying the task's marker. */
async function formerPull(
  deps: LandingDeps,
  task: PullTask,
  branch: string,
): Promise<GitHubPull | undefined> {
  const marker = pullMarker(task.batchId, task.taskId);
  const pulls = await deps.api.pullsWithHead(deps.repo, branch, 'all');
  return pulls.find((pull) => pull.body.includes(marker));
}

/** Opens (or updates) the task's pull request; ready only when it passed. */
async function landPull(deps: LandingDeps, task: PullTask, branch: string): Promise<PullLanded> {
  const passed = task.outcome === 'passed';
  const body = pullBody(task);
  await deps.push(branch);
  const former = await formerPull(deps, task, branch);
  let pull: GitHubPull;
  let action: PullLanded['action'];
  if (former === undefined) {
    pull = await deps.api.openPull(deps.repo, {
      head: branch,
      base: task.base,
      title: task.title,
      body,
      draft: !passed,
    });
    action = 'opened';
  } else {
    // A draft whose task now passed is marked ready; the API cannot turn a ready one back into a draft, so a task
    // that no longer passes keeps its pull request as it is, told so by its body and the needs-review label.
    const ready = passed && former.draft && former.state === 'open';
    pull = await deps.api.updatePull(deps.repo, former.number, ready ? { body, draft: false } : { body });
    action = 'updated';
  }
  if (!passed) await deps.api.addLabels(deps.repo, pull.number, [NEEDS_REVIEW_LABEL]);
  return { pull, action, commentUrl: null };
}

/** Comments the outcome on the task's issue, unless a former run said the same outcome already. */
async function commentOnce(
  deps: LandingDeps,
  task: PullTask,
  pullUrl: string | null,
): Promise<string | null> {
  if (task.issue === null) return null;
  const marker = issueCommentMarker(task.batchId, task.taskId, task.outcome);
  const said = await deps.api.comments(deps.repo, task.issue);
  if (said.some((comment) => comment.body.includes(marker))) return null;
  return deps.api.comment(deps.repo, task.issue, issueComment(task, pullUrl));
}

/**
 * Lands one task as a pull request: pushes its branch and opens (or, re-run, updates) its pull request — ready only
 * when it passed, else a draft labelled `ralph: needs-review` — then comments the outcome on its issue once. A task
 * with no branch gets only the comment.
 */
export async function landAsPull(deps: LandingDeps, task: PullTask): Promise<PullLanded> {
  const landed: PullLanded =
    task.branch === null
      ? { pull: null, action: 'none', commentUrl: null }
      : await landPull(deps, task, task.branch);
  return { ...landed, commentUrl: await commentOnce(deps, task, landed.pull?.htmlUrl ?? null) };
}
