import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { urlCredentialsProblem } from '../contract/url-credentials.js';
import { git, gitLine, gitLines } from './git-command.js';

/**
 * The transports a batch's repository URL may use: `file://`, `https://`, `ssh://` and scp-like `user@host:path`.
 * Anything else is refused, `ext::` (which runs a command) above all.
 */
const REPO_URL = /^(file:\/\/\/|https:\/\/|ssh:\/\/)[^\s]+$|^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s-][^\s]*$/;

/**
 * Why a repository URL is refused, or null when it is one a worker may clone and push to: with no credential in it
 * (workers bring their own), over an allowed transport.
 */
export function repoUrlProblem(url: string): string | null {
  const credentials = urlCredentialsProblem(url);
  if (credentials !== null) return credentials;
  // A host or path starting with `-` would reach ssh as an option (`ssh://-oProxyCommand=…`).
  if (url.startsWith('-') || !REPO_URL.test(url) || url.includes('::') || /(:\/\/|@|:)-/.test(url))
    return 'it must be a file://, https://, ssh:// or user@host:path URL (no other transport, never ext::)';
  return null;
}

/**
 * The `-c` options every command that reaches the remote gets: only the transports a batch URL may name, so no
 * redirect, submodule or `insteadOf` rewrite reaches another one (git's GIT_ALLOW_PROTOCOL, as config).
 */
export const PROTOCOLS = [
  '-c',
  'protocol.allow=never',
  ...['file', 'https', 'ssh'].flatMap((name) => ['-c', `protocol.${name}.allow=always`]),
] as const;

/** The remote-tracking ref of a branch of the batch's remote in a worker's clone. */
export const remoteRef = (branch: string): string => `refs/remotes/origin/${branch}`;

/**
 * A worker's bare clone of `url` at `clone`, made once (`git init --bare` and the remote `origin`; no checkout, no
 * hook of the remote's runs), then fetched: every branch of the remote as `refs/remotes/origin/*`, pruned. The clone
 * is its user's alone: its folders 0700, its files (its config names the URL) 0600, whatever the umask.
 */
export async function fetchClone(clone: string, url: string): Promise<void> {
  if (!existsSync(clone)) {
    await mkdir(clone, { recursive: true, mode: 0o700 });
    await git(clone, ['init', '--quiet', '--bare', '--shared=0600']);
    await git(clone, ['remote', 'add', 'origin', url]);
  }
  await git(clone, [
    ...PROTOCOLS,
    'fetch',
    '--quiet',
    '--prune',
    'origin',
    '+refs/heads/*:refs/remotes/origin/*',
  ]);
}

/** The commit a branch of the remote was at when the clone last fetched, or null when the remote has no such branch. */
export async function remoteHead(clone: string, branch: string): Promise<string | null> {
  return gitLine(clone, ['rev-parse', '--verify', '--quiet', `${remoteRef(branch)}^{commit}`]).catch(
    () => null,
  );
}

/** The commit `ref` (`HEAD`, `refs/heads/main`) is at on the remote `url`, asked directly; null when it has none. */
export async function lsRemote(cwd: string, url: string, ref: string): Promise<string | null> {
  const lines = await gitLines(cwd, [...PROTOCOLS, 'ls-remote', '--', url, ref]);
  const exact = lines.map((line) => line.split('\t')).find(([, name]) => name === ref);
  return exact?.[0] ?? null;
}

/**
 * Pushes `head` (a commit of `cwd`'s repository) to the remote's `branch`, only if that branch is still at
 * `expected` (null: only if it does not exist): `--force-with-lease` naming the old commit, never a plain force.
 * Resolves false when the remote's branch was elsewhere (nothing was pushed).
 */
export async function pushBranch(
  cwd: string,
  head: string,
  branch: string,
  expected: string | null,
): Promise<boolean> {
  const ref = `refs/heads/${branch}`;
  try {
    await git(cwd, [
      ...PROTOCOLS,
      'push',
      '--quiet',
      '--no-verify',
      `--force-with-lease=${ref}:${expected ?? ''}`,
      'origin',
      `${head}:${ref}`,
    ]);
    return true;
  } catch (error) {
    if (/stale info|rejected|fetch first|non-fast-forward/.test(String(error))) return false;
    throw error;
  }
}

/** The values of the `Ralph-Task:` trailers of the commits in `range` (e.g. `<base>..<target>`). */
export async function taskTrailers(cwd: string, range: string): Promise<string[]> {
  return gitLines(cwd, ['log', '--format=%(trailers:key=Ralph-Task,valueonly,separator=%x0a)', range]);
}
