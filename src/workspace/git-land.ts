import { git } from './git-command.js';
import { checkedOutBranches } from './git-session.js';

/** The target moved while a merge was going on: nothing was written, the merge is to be done again. */
export class TargetMovedError extends Error {
  override name = 'TargetMovedError';
}

/**
 * The target is checked out in a worktree (a `--resume` of a tampered recording, or its user's own `git checkout`
 * during the batch): moving it would leave that worktree's files showing the landed work as staged reversals.
 */
export class TargetCheckedOutError extends Error {
  override name = 'TargetCheckedOutError';
}

/**
 * Moves the branch `target` to `head` only if it is still at `expected` (`git update-ref` compares and swaps), so a
 * target someone else moved meanwhile is detected, never overwritten; and never while some worktree of the
 * repository has it checked out (checked at every landing, since one can be checked out at any time).
 */
export async function fastForwardTarget(
  repo: string,
  target: string,
  head: string,
  expected: string,
  reason: string,
): Promise<void> {
  const worktree = (await checkedOutBranches(repo)).get(target);
  if (worktree !== undefined)
    throw new TargetCheckedOutError(
      `${target} is checked out in the worktree ${worktree}, and a batch never moves a branch under someone's files: it was left as it is`,
    );
  try {
    await git(repo, ['update-ref', '-m', reason, `refs/heads/${target}`, head, expected]);
  } catch (error) {
    throw new TargetMovedError(
      `${target} is no longer at ${expected.slice(0, 12)}: it moved while the merge was verified, so it was left as it is`,
      { cause: error },
    );
  }
}
