// GitHub's rule for a repository's name, one for every reader of it: `--from-github`, `--github-repo`, and a fleet
// batch task's row, which anyone who can write to the fleet's database could have written.
import type { RepoRef } from './github-api.js';

/** GitHub's rule for owner and repository names: letters, digits, `-`, `_`, `.` (a repository not `.` or `..`). */
export const REPO_REF = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;

/** `OWNER/REPO` as a repository, or null when it is none by GitHub's rule. */
export function parseRepoRef(text: string): RepoRef | null {
  const match = REPO_REF.exec(text.trim());
  if (match === null || match[2] === '.' || match[2] === '..') return null;
  return { owner: match[1] as string, repo: match[2] as string };
}

/** Whether a value read from elsewhere is a repository `{owner, repo}` by GitHub's rule (and nothing else). */
export function isRepoRef(value: unknown): value is RepoRef {
  if (typeof value !== 'object' || value === null) return false;
  const { owner, repo, ...rest } = value as Record<string, unknown>;
  if (typeof owner !== 'string' || typeof repo !== 'string' || Object.keys(rest).length > 0) return false;
  const parsed = parseRepoRef(`${owner}/${repo}`);
  return parsed !== null && parsed.owner === owner && parsed.repo === repo;
}

/**
 * The repository a git remote's URL names on GitHub (https, ssh or scp-like `git@host:owner/repo.git`), or null when
 * its path is not `OWNER/REPO` by GitHub's rule.
 */
export function repoOfRemoteUrl(url: string): RepoRef | null {
  const path = /^[a-z+]+:\/\/[^/]+\/(.+)$/i.exec(url)?.[1] ?? /^[^/:]+@[^/:]+:(.+)$/.exec(url)?.[1];
  const parts = path?.replace(/\.git\/?$/, '').split('/');
  return parts?.length === 2 ? parseRepoRef(parts.join('/')) : null;
}
