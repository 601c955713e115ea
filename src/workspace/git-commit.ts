import { git, gitLine } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';
import { taskTrailers } from './git-remote.js';

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

/**
 * Commits what a batch task's agents left in its worktree (as commitLeftovers) with `message`, which carries the
 * task's `Ralph-Task: <trailer>` (taskCommitMessage). With `final` (the task's loop completed, its branch goes to the merge queue) the head
 * carries the trailer afterwards: an empty commit when the agents committed everything themselves, none more when
 * the head has it already (a resumed batch). A landing's head is then always a commit of the batch.
 */
export async function commitTaskLeftovers(
  worktree: string,
  message: string,
  trailer: string,
  { final }: { final: boolean },
): Promise<string> {
  const made = final && (await taskTrailers(worktree, 'HEAD^!').catch((): string[] => [])).includes(trailer);
  return commitLeftovers(worktree, message, { allowEmpty: final && !made });
}
