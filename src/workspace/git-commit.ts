import { git, gitLine } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';

/**
 * Commits everything an agent left uncommitted in a worktree (new, changed and deleted files) in one commit with
 * `message`; resolves with the worktree's head commit, the new one or, when nothing was left, the one it was at.
 * With `allowEmpty` the commit is made even when nothing was left (a fleet batch's task commit carries its
 * `Ralph-Task:` trailer, which is how a landing recognises the task on the target).
 */
export async function commitLeftovers(
  worktree: string,
  message: string,
  { allowEmpty = false }: { allowEmpty?: boolean } = {},
): Promise<string> {
  await git(worktree, ['add', '--all']);
  const staged = await git(worktree, ['diff', '--cached', '--name-only']);
  if (staged.trim() !== '' || allowEmpty)
    await git(worktree, [
      ...(await commitIdentityArgs(worktree)),
      'commit',
      '--no-verify',
      '--quiet',
      ...(allowEmpty ? ['--allow-empty'] : []),
      '-m',
      message,
    ]);
  return gitLine(worktree, ['rev-parse', 'HEAD']);
}
