import { git, gitLine, gitLines } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';
import { taskTrailers } from './git-remote.js';
import { worktreeList } from './git-worktree.js';

/** Where a batch lands its tasks, and what it started from. */
export interface BatchSession {
  /** The repository's top folder (the main worktree, or the linked one ralph was started in). */
  repo: string;
  /** The branch the merge queue moves: `ralph/batch-<id>`, or the `--into` branch. */
  target: string;
  /** The commit the target was at when the batch started: the base of every task without `after`. */
  start: string;
  /** The tag on `start` that `ralph batch --rollback <id>` restores the target to. */
  tag: string;
  /** Paths the user's working tree has uncommitted changes in: reported, never read, never included. */
  dirty: string[];
}

/** A batch that cannot start or roll back; the CLI refuses with its message (exit 2), nothing started. */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** The session branch of a batch. */
export const sessionBranch = (batchId: string): string => `ralph/batch-${batchId}`;

/** The tag on a batch's starting commit. */
export const startTag = (batchId: string): string => `ralph/batch-${batchId}/start`;

/** The branch of one task of a batch. */
export const taskBranch = (batchId: string, taskId: string): string => `ralph/${batchId}/${taskId}`;

/**
 * The branches some worktree of the repository has checked out, each with that worktree's folder: moving one would
 * change what its user's files are compared with (the landed work would show there as staged reversals).
 */
export async function checkedOutBranches(repo: string): Promise<Map<string, string>> {
  return new Map(
    (await worktreeList(repo)).flatMap((entry) =>
      entry.branch === null ? [] : [[entry.branch, entry.path] as const],
    ),
  );
}

/** The commit a branch points at, or null when there is no such branch. */
export async function branchCommit(repo: string, branch: string): Promise<string | null> {
  return gitLine(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]).catch(
    () => null,
  );
}

/**
 * Starts a batch in the repository `cwd` is in: a session branch `ralph/batch-<id>` at HEAD (or the existing
 * `into` branch, which no worktree may have checked out), and a tag on that commit naming the target. Reads nothing
 * of the working tree but `git status`'s list of dirty paths, which the caller reports.
 */
export async function startSession(cwd: string, batchId: string, into?: string): Promise<BatchSession> {
  const repo = await gitLine(cwd, ['rev-parse', '--show-toplevel']).catch(() => {
    throw new SessionError(`${cwd} is not in a git repository: a batch works in git worktrees`);
  });
  let target = sessionBranch(batchId);
  let start: string;
  if (into === undefined) {
    start = await gitLine(repo, ['rev-parse', '--verify', 'HEAD^{commit}']).catch(() => {
      throw new SessionError('the repository has no commit yet: a batch starts from HEAD');
    });
    await git(repo, ['branch', '--no-track', target, start]);
  } else {
    target = into;
    const at = await branchCommit(repo, into);
    if (at === null) throw new SessionError(`--into ${into}: there is no such branch`);
    if ((await checkedOutBranches(repo)).has(into))
      throw new SessionError(
        `--into ${into}: that branch is checked out in a worktree, and a batch never moves a branch under someone's files`,
      );
    start = at;
  }
  const tag = startTag(batchId);
  await git(repo, [
    ...(await commitIdentityArgs(repo)),
    'tag',
    '-a',
    '-m',
    `ralph batch ${batchId}\ntarget ${target}`,
    tag,
    start,
  ]);
  const status = await gitLines(repo, ['status', '--porcelain', '--untracked-files=normal']);
  return { repo, target, start, tag, dirty: status.map((line) => line.slice(3)) };
}

/** What a rollback did: the target it moved back, from where to where. */
export interface Rollback {
  target: string;
  from: string;
  to: string;
}

/**
 * True when `head`, a batch's target's head, is where batch `batchId` left it: its start commit `start`, or one of
 * its landings (a commit with a `Ralph-Task: <batchId>/…` trailer, which every landing's head carries). Anything
 * else is a commit someone made on the target since: a rollback would throw it away. `repo` must hold `head`.
 */
export async function isBatchHead(
  repo: string,
  batchId: string,
  head: string,
  start: string,
): Promise<boolean> {
  if (head === start) return true;
  const trailers = await taskTrailers(repo, `${head}^!`).catch((): string[] => []);
  return trailers.some((value) => value.startsWith(`${batchId}/`));
}

/** Refusal of a rollback: the target (as shown) moved since the batch's last landing; nothing was moved. */
export const movedSinceBatch = (shownTarget: string, batchId: string, head: string): SessionError =>
  new SessionError(
    `${shownTarget} moved since batch ${batchId}'s last landing (its head ${head.slice(0, 12)} is no landing of the ` +
      'batch): it was left as it is',
  );

/**
 * `ralph batch --rollback <id>`: moves the batch's target back to the commit its start tag is on. The landed
 * commits stay reachable from their task branches; a target checked out in a worktree is refused, not moved, and so
 * is one whose head is not the batch's (isBatchHead): a commit made on it since would be lost.
 */
export async function rollbackSession(cwd: string, batchId: string): Promise<Rollback> {
  const tag = startTag(batchId);
  const repo = await gitLine(cwd, ['rev-parse', '--show-toplevel']).catch(() => {
    throw new SessionError(`${cwd} is not in a git repository`);
  });
  const message = await git(repo, ['tag', '-l', '--format=%(contents)', tag]);
  const target = /^target (.+)$/m.exec(message)?.[1];
  if (target === undefined) throw new SessionError(`there is no batch ${batchId} here (no tag ${tag})`);
  const to = await gitLine(repo, ['rev-parse', '--verify', `refs/tags/${tag}^{commit}`]);
  const from = await branchCommit(repo, target);
  if (from === null) throw new SessionError(`batch ${batchId}'s target ${target} is gone`);
  if ((await checkedOutBranches(repo)).has(target))
    throw new SessionError(
      `${target} is checked out in a worktree: check out another branch first, then roll back`,
    );
  if (!(await isBatchHead(repo, batchId, from, to))) throw movedSinceBatch(target, batchId, from);
  await git(repo, ['update-ref', `refs/heads/${target}`, to, from]);
  return { target, from, to };
}
