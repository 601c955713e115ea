import { git } from './git-command.js';

/** The target moved while a merge was going on: nothing was written, the merge is to be done again. */
export class TargetMovedError extends Error {
  override name = 'TargetMovedError';
}

/**
 * Moves the branch `target` to `head` only if it is still at `expected` (`git update-ref` compares and swaps), so a
 * target someone else moved meanwhile is detected, never overwritten.
 */
export async function fastForwardTarget(
  repo: string,
  target: string,
  head: string,
  expected: string,
  reason: string,
): Promise<void> {
  try {
    await git(repo, ['update-ref', '-m', reason, `refs/heads/${target}`, head, expected]);
  } catch (error) {
    throw new TargetMovedError(
      `${target} is no longer at ${expected.slice(0, 12)}: it moved while the merge was verified, so it was left as it is`,
      { cause: error },
    );
  }
}
