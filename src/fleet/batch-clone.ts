import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { git } from '../workspace/git-command.js';
import { commitLeftovers } from '../workspace/git-commit.js';
import { fetchClone, pushBranch, remoteHead, taskTrailers } from '../workspace/git-remote.js';
import { taskBranch } from '../workspace/git-session.js';
import { removeWorktree } from '../workspace/git-worktree.js';
import { type TaskCommit, taskCommitMessage } from '../workspace/task-commit-message.js';
import { type FleetBatchTask, taskTrailer } from './batch-input.js';
import { privateFolder, statePath } from './state-folder.js';

/** Where a worker keeps its clones of batch repositories, their task worktrees and its merge scratch trees. */
export interface BatchFolders {
  /** The worker's state folder (`ralph worker --state-dir`). */
  stateDir: string;
}

/** The worker's bare clone of a repository URL: one per URL, kept across tasks and fetched before each use. */
export const clonePath = (folders: BatchFolders, url: string): string =>
  statePath(folders.stateDir, 'repos', `${createHash('sha256').update(url).digest('hex').slice(0, 16)}.git`);

/** A task's worktree on this worker (refused when its ids would put it anywhere but under the state folder). */
export const taskWorktreePath = (folders: BatchFolders, task: FleetBatchTask): string =>
  statePath(folders.stateDir, 'worktrees', task.batchId, task.taskId);

/**
 * The task's branch, made from its ids (`ralph/<batch-id>/<task-id>`), never the one its row names: a task's
 * rounds are pushed there, and only the merge queue moves the target.
 */
export const branchOf = (task: FleetBatchTask): string => taskBranch(task.batchId, task.taskId);

/** The commands of this process on each clone, one after another (two fetches into one clone would race). */
const cloneQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `body` on the worker's clone of `url`, fetched first (unless `fetch` is false and the clone is there), after
 * this process's previous use of that clone.
 */
export function withClone<T>(
  folders: BatchFolders,
  url: string,
  body: (clone: string) => Promise<T>,
  { fetch = true }: { fetch?: boolean } = {},
): Promise<T> {
  let clone: string;
  try {
    clone = clonePath(folders, url);
  } catch (error) {
    return Promise.reject(error);
  }
  const run = (cloneQueues.get(clone) ?? Promise.resolve()).then(async () => {
    if (fetch || !existsSync(clone)) {
      await privateFolder(folders.stateDir, 'repos', dirname(clone));
      await fetchClone(clone, url);
    }
    return body(clone);
  });
  cloneQueues.set(
    clone,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * A fresh worktree for the task, on its branch as the remote has it (the rounds a worker ran before, pushed after
 * each), else from `base`: whatever a previous attempt left on this worker is discarded, as another worker would
 * never have had it.
 */
export async function openTaskWorktree(
  folders: BatchFolders,
  task: FleetBatchTask,
  base: string,
): Promise<string> {
  const path = taskWorktreePath(folders, task);
  return withClone(folders, task.repo, async (clone) => {
    if (existsSync(path)) await removeWorktree(clone, path);
    const branch = branchOf(task);
    const start = (await remoteHead(clone, branch)) ?? base;
    await privateFolder(folders.stateDir, 'worktrees', dirname(path));
    await git(clone, ['worktree', 'add', '--quiet', '-B', branch, path, start]);
    return path;
  });
}

/** The task's worktree gone (its branch is on the remote), and its batch's folder with it once empty. */
export const closeTaskWorktree = async (folders: BatchFolders, task: FleetBatchTask): Promise<void> =>
  dropWorktree(folders, task.repo, taskWorktreePath(folders, task), 'worktrees');

/**
 * Removes a worktree of the clone of `url` (on the clone's queue, no fetch), then the folders above it up to the
 * state folder's `kind` folder (`worktrees`, `merges`) as long as they are empty.
 */
export function dropWorktree(folders: BatchFolders, url: string, path: string, kind: string): Promise<void> {
  return withClone(
    folders,
    url,
    async (clone) => {
      await removeWorktree(clone, statePath(folders.stateDir, path));
      await removeEmptyFolders(path, statePath(folders.stateDir, kind));
    },
    { fetch: false },
  );
}

/**
 * Removes `path` and the folders above it, up to `top` (kept), as long as each is empty: a worker's state folder
 * keeps no empty `worktrees/<batch>/` or `merges/<batch>/<task>/` after its tasks. Called on a clone's queue, so
 * no task of this worker is making a folder there meanwhile.
 */
async function removeEmptyFolders(path: string, top: string): Promise<void> {
  for (let folder = path; folder.startsWith(`${top}${sep}`); folder = dirname(folder)) {
    try {
      await rmdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    }
  }
}

/**
 * Commits what the agents left in the task's worktree, in a commit whose subject is the task's objective and whose
 * trailers name the batch, the run and the task (`Ralph-Task:`, how a landing knows the target holds the task), and
 * pushes the task's branch, so a worker that takes the task over starts where this one was. With `final` there is a
 * commit with the trailer at the head afterwards: an empty one when the agents committed everything themselves, none
 * more when the head has it (a step re-run after a crash).
 */
export async function saveTaskBranch(
  folders: BatchFolders,
  task: FleetBatchTask,
  commit: Pick<TaskCommit, 'objective' | 'runId' | 'round'>,
  { final = false }: { final?: boolean } = {},
): Promise<string> {
  const worktree = taskWorktreePath(folders, task);
  return withClone(folders, task.repo, async () => {
    const trailer = taskTrailer(task);
    const made =
      final && (await taskTrailers(worktree, 'HEAD^!').catch((): string[] => [])).includes(trailer);
    const message = taskCommitMessage({ batchId: task.batchId, taskId: task.taskId, ...commit });
    const head = await commitLeftovers(worktree, message, { allowEmpty: final && !made });
    // The branch is the task's alone: pushed from what the remote had of it, or over it after a takeover.
    const clone = clonePath(folders, task.repo);
    const branch = branchOf(task);
    if (!(await pushBranch(worktree, head, branch, await remoteHead(clone, branch))))
      throw new Error(`${branch} moved on the remote while this worker pushed it`);
    return head;
  });
}
