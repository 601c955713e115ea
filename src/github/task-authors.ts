// Who may write a batch's tasks as issues: the logins given with `--from-authors`, or by default the people with
// write access to the repository, as GitHub says — each author asked once.
import type { GitHubApi, RepoPermission, RepoRef } from './github-api.js';
import type { TaskAuthors } from './issue-tasks.js';

/** The permissions that let a person write tasks: those that let them push to the repository anyway. */
const WRITES: ReadonlySet<RepoPermission> = new Set(['admin', 'maintain', 'write']);

/** `--from-authors a,b`: the logins listed (lower case), or null when the list names none. */
export function listedAuthors(text: string): TaskAuthors | null {
  const logins = text
    .split(',')
    .map((login) => login.trim().replace(/^@/, '').toLowerCase())
    .filter((login) => login !== '');
  return logins.length === 0 ? null : { allowed: new Set(logins), rule: { kind: 'listed' } };
}

/**
 * The authors among `authors` with write access to the repository, asking GitHub each distinct login once (logins
 * compared case-insensitively). A failed request rejects: an author whose access cannot be known is not guessed.
 */
export async function writingAuthors(
  api: Pick<GitHubApi, 'permissionOf'>,
  repo: RepoRef,
  authors: readonly string[],
): Promise<TaskAuthors> {
  const permissionOf = new Map<string, RepoPermission>();
  for (const author of authors) {
    const login = author.toLowerCase();
    if (!permissionOf.has(login)) permissionOf.set(login, await api.permissionOf(repo, author));
  }
  const allowed = new Set([...permissionOf].filter(([, level]) => WRITES.has(level)).map(([login]) => login));
  return { allowed, rule: { kind: 'write', permissionOf } };
}
