import { git, gitLine } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';

/**
 * Commits everything an agent left uncommitted in a worktree (new, changed and deleted files) in one commit with
 * `message`; resolves with the worktree's head commit, the new one or, when nothing was left, the one it was at.
 */
export async function commitLeftovers(worktree: string, message: string): Promise<string> {
  await git(worktree, ['add', '--all']);
  const staged = await git(worktree, ['diff', '--cached', '--name-only']);
  if (staged.trim() !== '')
    await git(worktree, [
      ...(await commitIdentityArgs(worktree)),
      'commit',
      '--no-verify',
      '--quiet',
      '-m',
      message,
    ]);
  return gitLine(worktree, ['rev-parse', 'HEAD']);
}
