import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitLine } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';
import { PROTOCOLS, pushBranch } from './git-remote.js';
import { isBatchHead, movedSinceBatch, type Rollback, SessionError, startTag } from './git-session.js';

/**
 * Runs `body` in a scratch bare repository whose `origin` is `url`, removed afterwards: what the submitter of a
 * fleet batch (who has no clone of the repository) fetches the few commits it needs into.
 */
async function withScratchRepo<T>(url: string, body: (repo: string) => Promise<T>): Promise<T> {
  const repo = await mkdtemp(join(tmpdir(), 'ralph-batch-remote-'));
  try {
    await git(repo, ['init', '--quiet', '--bare']);
    await git(repo, ['remote', 'add', 'origin', url]);
    return await body(repo);
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

/** Fetches `refs` of the remote (their commits only, `--depth 1`) into the scratch repository. */
const fetchShallow = (repo: string, refs: string[]): Promise<string> =>
  git(repo, [...PROTOCOLS, 'fetch', '--quiet', '--depth', '1', '--no-tags', 'origin', ...refs]);

/**
 * Starts a fleet batch on the remote `url`: reads the commit `ref` (`HEAD`, or `refs/heads/<into>`) is at and puts
 * the tag `ralph/batch-<id>/start` on it there, naming the target in its message as `ralph batch` does locally,
 * so `ralph batch --rollback <id> --repo URL` finds both with no database. Resolves with that commit.
 */
export function startRemoteSession(
  url: string,
  batchId: string,
  ref: string,
  target: string,
): Promise<string> {
  return withScratchRepo(url, async (repo) => {
    await fetchShallow(repo, [ref]);
    const start = await gitLine(repo, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}']);
    const tag = startTag(batchId);
    const message = `ralph batch ${batchId}\ntarget ${target}`;
    await git(repo, [...(await commitIdentityArgs(repo)), 'tag', '-a', '-m', message, tag, start]);
    await git(repo, [...PROTOCOLS, 'push', '--quiet', '--no-verify', 'origin', `refs/tags/${tag}`]);
    return start;
  });
}

/**
 * `ralph batch --rollback <id> --repo URL`: moves a fleet batch's target on the remote back to the commit its start
 * tag is on, with `--force-with-lease` from the head it read. Refused, the remote untouched, when there is no such
 * batch, when its target is not there, or when the target's head is no landing of this batch (someone else pushed
 * to it since the batch's last landing): rolling back would throw their commits away.
 */
export function rollbackRemoteSession(url: string, batchId: string): Promise<Rollback> {
  const tag = startTag(batchId);
  return withScratchRepo(url, async (repo) => {
    await fetchShallow(repo, [`+refs/tags/${tag}:refs/tags/${tag}`]).catch(() => {
      throw new SessionError(`there is no batch ${batchId} on ${url} (no tag ${tag})`);
    });
    const message = await git(repo, ['tag', '-l', '--format=%(contents)', tag]);
    const target = /^target (.+)$/m.exec(message)?.[1];
    if (target === undefined) throw new SessionError(`the tag ${tag} on ${url} names no target`);
    const to = await gitLine(repo, ['rev-parse', '--verify', `refs/tags/${tag}^{commit}`]);
    const tip = `refs/remotes/origin/${target}`;
    await fetchShallow(repo, [`+refs/heads/${target}:${tip}`]).catch(() => {
      throw new SessionError(`batch ${batchId}'s target ${target} is not on ${url}: nothing landed`);
    });
    const from = await gitLine(repo, ['rev-parse', '--verify', `${tip}^{commit}`]);
    if (from === to) return { target, from, to };
    const moved = movedSinceBatch(`${target} on ${url}`, batchId, from);
    if (!(await isBatchHead(repo, batchId, from, to))) throw moved;
    if (!(await pushBranch(repo, to, target, from))) throw moved;
    return { target, from, to };
  });
}
