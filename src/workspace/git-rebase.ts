import { git, gitLine, gitLines } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';

/** How bringing a task's branch onto the target's head went. */
export type RebaseOutcome =
  | { kind: 'rebased'; head: string }
  | { kind: 'conflict'; files: string[]; detail: string };

/**
 * In `scratch`, a worktree whose detached head is the task's last commit, rebases that head onto `onto` (the
 * target's head). A conflict is aborted, leaving the scratch tree at the task's commit, and named file by file;
 * the task's own branch and the target never move here.
 */
export async function rebaseOnto(scratch: string, onto: string): Promise<RebaseOutcome> {
  try {
    await git(scratch, [...(await commitIdentityArgs(scratch)), 'rebase', '--quiet', onto]);
  } catch (error) {
    const files = await gitLines(scratch, ['diff', '--name-only', '--diff-filter=U']).catch(() => []);
    await git(scratch, ['rebase', '--abort']).catch(() => undefined);
    const detail = error instanceof Error ? error.message : String(error);
    return { kind: 'conflict', files, detail };
  }
  return { kind: 'rebased', head: await gitLine(scratch, ['rev-parse', 'HEAD']) };
}
