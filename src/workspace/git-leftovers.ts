import { lstat, rm } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { git, gitLine, gitLines } from './git-command.js';
import { batchesRoot, pruneWorktrees, worktreePaths } from './git-worktree.js';

/** Branches a batch makes live under this prefix; a branch outside it is one of the user's. */
const RALPH_BRANCHES = 'refs/heads/ralph/';

/** A path that a clean may not touch: it is not inside the repository's batches folder. */
export class LeftoverPathError extends Error {
  override name = 'LeftoverPathError';
}

/** What a path is on disk, never following a symbolic link: gone, a folder, a link, or another kind of file. */
export async function pathKind(path: string): Promise<'none' | 'folder' | 'link' | 'file'> {
  const stat = await lstat(path).catch(() => null);
  if (stat === null) return 'none';
  if (stat.isSymbolicLink()) return 'link';
  return stat.isDirectory() ? 'folder' : 'file';
}

/**
 * The repository's batches folder (`<git folder>/ralph/batches`), or null when no batch ever made one. Refused when
 * `ralph` or `ralph/batches` is a symbolic link: what is removed under it would then be somewhere else.
 */
export async function leftoversRoot(repo: string): Promise<string | null> {
  const root = await batchesRoot(repo);
  for (const folder of [dirname(root), root]) {
    const kind = await pathKind(folder);
    if (kind === 'none') return null;
    if (kind !== 'folder')
      throw new LeftoverPathError(
        `${folder} is ${kind === 'link' ? 'a symbolic link' : 'not a folder'}: ralph removes only what is inside the repository's own git folder`,
      );
  }
  return root;
}

/** Throws unless `path` is strictly inside `root` (lexically: no `..`, not `root` itself). */
export function assertInside(root: string, path: string): void {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new LeftoverPathError(`${path} is not inside ${root}: it is not ralph's to remove`);
}

/** A ref's value (a commit, or an annotated tag's object), or null when there is no such ref. */
export async function refValue(repo: string, ref: string): Promise<string | null> {
  const value = await gitLine(repo, ['rev-parse', '--verify', '--quiet', ref]).catch(() => '');
  return value === '' ? null : value;
}

/** True when merging `rev` into `onto` would change nothing: every change of `rev` is on `onto` already. */
async function mergeAddsNothing(repo: string, onto: string, rev: string): Promise<boolean> {
  // git merge-tree --write-tree (git 2.38 and later) merges without a worktree; an older git, or a conflict, is a no.
  const merged = await gitLine(repo, ['merge-tree', '--write-tree', '--no-messages', onto, rev]).catch(
    () => '',
  );
  if (merged === '') return false;
  const tree = merged.split('\n')[0];
  return tree === (await gitLine(repo, ['rev-parse', '--verify', `${onto}^{tree}`]));
}

/**
 * How many commits of `branch` are not on `target`: 0 when all its work is there (reachable from it, landed as an
 * equal patch, or such that merging the branch would change nothing: a rebase whose context moved). Else the commits
 * git cherry finds no equal patch of, less those whose merge would change nothing (copies that landed), at least 1.
 */
export async function commitsNotOn(repo: string, branch: string, target: string): Promise<number> {
  const onto = `refs/heads/${target}`;
  const from = `refs/heads/${branch}`;
  const unmatched = (await gitLines(repo, ['cherry', onto, from]))
    .filter((line) => line.startsWith('+ '))
    .map((line) => line.slice(2));
  if (unmatched.length === 0 || (await mergeAddsNothing(repo, onto, from))) return 0;
  let missing = 0;
  for (const commit of unmatched) if (!(await mergeAddsNothing(repo, onto, commit))) missing += 1;
  return Math.max(missing, 1);
}

/**
 * A branch of the user's (outside `ralph/`) that holds `commit`'s work: one it is reachable from, else one that a
 * merge of it would not change (a squash or rebase merged it); null when none does.
 */
export async function userBranchHolding(repo: string, commit: string): Promise<string | null> {
  const ofUser = (refs: string[]) => refs.filter((ref) => !ref.startsWith(RALPH_BRANCHES));
  const containing = ofUser(
    await gitLines(repo, ['for-each-ref', `--contains=${commit}`, '--format=%(refname)', 'refs/heads/']),
  );
  const found = containing[0];
  if (found !== undefined) return found.slice('refs/heads/'.length);
  for (const ref of ofUser(await gitLines(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/'])))
    if (await mergeAddsNothing(repo, ref, commit)) return ref.slice('refs/heads/'.length);
  return null;
}

/** How many commits `from..to` holds. */
export async function commitsBetween(repo: string, from: string, to: string): Promise<number> {
  return Number(await gitLine(repo, ['rev-list', '--count', `${from}..${to}`]));
}

/** How many paths of a worktree have uncommitted changes (untracked files included). */
export async function uncommittedPaths(tree: string): Promise<number> {
  return (await gitLines(tree, ['status', '--porcelain', '--untracked-files=normal'])).length;
}

/** Deletes `ref` only if it still has the value `expected` (compare and swap: a ref moved meanwhile stays). */
export async function deleteRef(repo: string, ref: string, expected: string): Promise<void> {
  await git(repo, ['update-ref', '-d', ref, expected]);
}

/**
 * Removes `path`, which must be inside `root`, never following a symbolic link: a link is unlinked, a registered
 * worktree is removed by git and forgotten, any other folder removed with what is in it (links in it unlinked).
 */
export async function removeInside(repo: string, root: string, path: string): Promise<void> {
  assertInside(root, path);
  const kind = await pathKind(path);
  if (kind === 'folder' && (await worktreePaths(repo)).includes(path))
    await git(repo, ['worktree', 'remove', '--force', '--force', path]).catch(() => undefined);
  if (kind !== 'none') await rm(path, { recursive: kind === 'folder', force: true });
  await pruneWorktrees(repo);
}
