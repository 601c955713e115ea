import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitLine, gitLines } from './git-command.js';

/** The folder every batch's folder is in: `ralph/batches` in the repository's (common) git folder. */
export async function batchesRoot(repo: string): Promise<string> {
  const common = await gitLine(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return join(common, 'ralph', 'batches');
}

/** The folder of a batch's worktrees: inside the repository's git folder, never in the user's working tree. */
export async function batchFolder(repo: string, batchId: string): Promise<string> {
  return join(await batchesRoot(repo), batchId);
}

/** Adds a worktree at `path` on a new branch `branch` started at `start` (a commit or ref). */
export async function addWorktree(repo: string, path: string, branch: string, start: string): Promise<void> {
  await git(repo, ['worktree', 'add', '--quiet', '-b', branch, path, start]);
}

/**
 * A task's worktree for a resumed batch: the folder as the crashed batch left it when it is still a worktree, else a
 * new worktree on the task's branch when the branch is there, else a new branch from `start`.
 */
export async function reopenWorktree(
  repo: string,
  path: string,
  branch: string,
  start: string,
): Promise<void> {
  if ((await worktreePaths(repo)).includes(path)) return;
  await rm(path, { recursive: true, force: true });
  await pruneWorktrees(repo);
  const known = await gitLine(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).catch(
    () => '',
  );
  if (known === '') await addWorktree(repo, path, branch, start);
  else await git(repo, ['worktree', 'add', '--quiet', path, branch]);
}

/** Adds a worktree at `path` with a detached head at `start`: the merge queue's scratch tree. */
export async function addDetachedWorktree(repo: string, path: string, start: string): Promise<void> {
  await git(repo, ['worktree', 'add', '--quiet', '--detach', path, start]);
}

/**
 * Removes a worktree and its folder, and forgets it; a folder already gone (a crash) is forgotten by the prune.
 * Its branch stays.
 */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', '--force', path]).catch(() => undefined);
  await rm(path, { recursive: true, force: true });
  await pruneWorktrees(repo);
}

/** `git worktree prune`: forgets every worktree whose folder is gone, so nothing stale is left after a crash. */
export async function pruneWorktrees(repo: string): Promise<void> {
  await git(repo, ['worktree', 'prune']);
}

/** One worktree of a repository: its folder, and the branch it has checked out (null when detached). */
export interface WorktreeEntry {
  path: string;
  branch: string | null;
}

/** The repository's worktrees, the main one first (`git worktree list --porcelain`). */
export async function worktreeList(repo: string): Promise<WorktreeEntry[]> {
  const entries: WorktreeEntry[] = [];
  for (const line of await gitLines(repo, ['worktree', 'list', '--porcelain'])) {
    if (line.startsWith('worktree ')) entries.push({ path: line.slice('worktree '.length), branch: null });
    const last = entries.at(-1);
    if (line.startsWith('branch refs/heads/') && last !== undefined)
      last.branch = line.slice('branch refs/heads/'.length);
  }
  return entries;
}

/** The folders of the repository's worktrees, the main one first. */
export async function worktreePaths(repo: string): Promise<string[]> {
  return (await worktreeList(repo)).map((entry) => entry.path);
}
