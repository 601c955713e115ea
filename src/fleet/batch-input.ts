import { idProblem } from '../contract/batch-tasks.js';
import { maskUrlCredentials } from '../contract/url-credentials.js';
import type { RepoRef } from '../github/github-api.js';
import { repoUrlProblem } from '../workspace/git-remote.js';
import { taskTrailerValue } from '../workspace/task-commit-message.js';
import type { BatchBudget } from './batch-budget.js';

/**
 * What a fleet run of a batch task carries besides an ordinary run's input (`ralph submit --batch`): where its
 * repository is, which branch it works on and lands on, and what it starts from.
 */
export interface FleetBatchTask {
  batchId: string;
  taskId: string;
  /** The repository's URL (file://, https://, ssh:// or user@host:path), cloned by each worker into its state folder. */
  repo: string;
  /** The branch the merge queue pushes (created from `base` by the first landing when the remote has none). */
  target: string;
  /** The task's branch on the remote: `ralph/<batch-id>/<task-id>`. */
  branch: string;
  /** The target's commit when the batch was submitted (or the remote's HEAD, for a target made by the batch). */
  base: string;
  /** Ids of the batch's tasks that must land first; the task then starts from the target as they left it. */
  after: string[];
  /** The verify command (as `--verify` reads it) the merge runs on the combined tree, or null for none. */
  verify: string | null;
  /** How long that verify command may take (ms). */
  verifyTimeoutMs: number;
  /** `--resolve-conflicts`: a conflict at its landing goes to a resolver loop of the task's agent (absent: no). */
  resolveConflicts?: boolean;
  /** The batch's own `--max-time`/`--max-cost`, held for the batch as a whole (absent: none). */
  budget?: BatchBudget;
  /**
   * `--land pr`: the task goes out as a pull request on `github` instead of moving the target, opened by a worker
   * with `--allow-github` and its own token (absent: the task lands on the target).
   */
  land?: 'pr';
  /** With `land: 'pr'`: a task after another opens its pull request against that task's branch. */
  stack?: boolean;
  /** With `land: 'pr'`: the repository the pull requests are opened on (never a token, never an API URL). */
  github?: RepoRef;
  /** With `land: 'pr'`: where the batch's report page is published, linked from each pull request. */
  reportUrl?: string;
}

/** A task's pull request, as the batch knows it once its worker opened (or updated) it. */
export interface FleetPull {
  url: string;
  /** The branch on GitHub it comes from (`ralph/gh-7`). */
  branch: string;
  /** The commit ralph pushed there, where a task after it starts from (null: this run pushed none). */
  head: string | null;
  draft: boolean;
}

/** How a batch task ended for the batch: landed on the target, or why not. */
export interface BatchTaskResult {
  status: 'landed' | 'needs-review' | 'failed' | 'skipped';
  /** Why it needs review, failed or was skipped; for `landed`, the commit the target was moved to. */
  detail: string;
  /** The conflicting files, for a conflict. */
  files: string[];
  /** With `--land pr`: the task's pull request (ready when it `landed`, else a draft); absent when none. */
  pull?: FleetPull;
}

/** The run id of a batch's task: `<batch-id>.<task-id>` (a batch id has no dot, so the prefix names the batch). */
export const batchTaskRunId = (batchId: string, taskId: string): string => `${batchId}.${taskId}`;

/** The workflow id of a task's landing: one per task, so a replay or a takeover never starts a second one. */
export const landingWorkflowId = (batchId: string, taskId: string): string => `${batchId}.${taskId}.land`;

/** The merge queue's partition of a target: landings on one branch of one repository run one at a time. */
export const landingPartition = (task: Pick<FleetBatchTask, 'repo' | 'target'>): string =>
  `${task.repo}#${task.target}`;

/** The `Ralph-Task:` trailer value of a task: what tells a landing the target holds it already. */
export const taskTrailer = (task: Pick<FleetBatchTask, 'batchId' | 'taskId'>): string =>
  taskTrailerValue(task.batchId, task.taskId);

/** Whether a stored outcome is a batch task's (it carries what became of the task besides its run's outcome). */
export function isBatchTaskOutcome(outcome: unknown): outcome is { batch: BatchTaskResult } {
  return typeof outcome === 'object' && outcome !== null && 'batch' in outcome;
}

/**
 * Why a batch task cannot be submitted or taken, or null: its batch and task ids name git branches and folders (the
 * rules of a tasks file's ids), and its repository URL is one a worker may clone, with no credential in it.
 */
export function batchTaskProblem(task: Pick<FleetBatchTask, 'batchId' | 'taskId' | 'repo'>): string | null {
  const batchId = idProblem(task.batchId);
  if (batchId !== null) return `its batch id ${batchId}`;
  const taskId = idProblem(task.taskId);
  if (taskId !== null) return `its task id ${taskId}`;
  const repo = repoUrlProblem(task.repo);
  return repo === null
    ? null
    : `its repository ${JSON.stringify(maskUrlCredentials(task.repo))} is refused: ${repo}`;
}
