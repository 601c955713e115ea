import { git } from './git-command.js';

/** The committer ralph names when the repository has no user of its own configured. */
const FALLBACK_IDENTITY = ['-c', 'user.name=ralph batch', '-c', 'user.email=ralph-batch@localhost'] as const;

/**
 * The `-c` options a commit made by ralph needs: none when the repository (or the user's config) names a user, so
 * commits are the user's as usual; else a fixed ralph identity rather than a commit that fails.
 */
export async function commitIdentityArgs(cwd: string): Promise<readonly string[]> {
  const email = await git(cwd, ['config', '--get', 'user.email']).catch(() => '');
  return email.trim() === '' ? FALLBACK_IDENTITY : [];
}
