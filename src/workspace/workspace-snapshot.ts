import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { FingerprintOptions } from './workspace-fingerprint.js';
import {
  findWorkTree,
  git,
  gitStatus,
  headCommit,
  MAX_STATUS_BYTES,
  statusRecords,
  type WorkTree,
  walkPathspecs,
} from './workspace-git.js';
import {
  describeEntry,
  type EntryDescription,
  openScope,
  type Scope,
  throwIfAborted,
  walkTree,
} from './workspace-walk.js';

/**
 * The workspace one path at a time: each file's (or symlink's, or folder's) path relative to the workspace ('/'
 * separators; a folder's ends in '/') with a digest of what is there; in a git work tree also the pseudo-entries
 * GIT_HEAD_ENTRY and GIT_INDEX_ENTRY. Only equality of the digests means anything. Not JSON: record what two
 * snapshots' `changedFiles` says, not the snapshots.
 */
export type WorkspaceSnapshot = ReadonlyMap<string, string>;

/** The snapshot entry of the commit HEAD names (a path no file can have: git never lists anything in `.git`). */
export const GIT_HEAD_ENTRY = '.git/HEAD';

/** The snapshot entry of the index (`git ls-files --stage` of the workspace, hashed): a `git add` changes it. */
export const GIT_INDEX_ENTRY = '.git/index';

/** An entry's digest: its description, and for a regular file whether it is executable (a chmod is a change). */
function digest(entry: EntryDescription): string {
  return entry.executable ? `${entry.text} executable` : entry.text;
}

/** The index entries of `git ls-files --stage -z` output by path from the top: `<mode> <object> <stage>`, joined. */
function indexEntries(listed: Buffer): Map<string, string> {
  const entries = new Map<string, string>();
  for (const record of listed.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const path = record.slice(tab + 1);
    const stage = record.slice(0, tab);
    const earlier = entries.get(path);
    // A conflicted path has one entry per stage.
    entries.set(path, earlier === undefined ? stage : `${earlier}, ${stage}`);
  }
  return entries;
}

/**
 * Adds the git state of the work tree `cwd` is in: HEAD, the index, and every tracked or untracked (not ignored)
 * file at and below `cwd` that is there. A file the work tree has as the index does (status says so) is digested
 * by its index entry, unread; any other by its content within the budget. A file deleted from the work tree is
 * not there; a change of the index alone is GIT_INDEX_ENTRY's.
 */
async function snapshotGitState(entries: Map<string, string>, cwd: string, workTree: WorkTree, scope: Scope) {
  const { signal } = scope;
  entries.set(GIT_HEAD_ENTRY, await headCommit(cwd, signal));
  const index = createHash('sha256');
  const listed = await git(
    ['ls-files', '--stage', '-z', '--full-name', ...walkPathspecs(scope, cwd)],
    cwd,
    signal,
    index,
    MAX_STATUS_BYTES,
  );
  if (listed.code !== 0) throw new Error(`git ls-files failed in ${cwd} (exit code ${listed.code})`);
  entries.set(GIT_INDEX_ENTRY, index.digest('hex'));
  const indexed = indexEntries(listed.kept);
  const codes = new Map<string, string>();
  for (const { code, path } of statusRecords(await gitStatus(cwd, scope))) codes.set(path, code);
  const untracked = [...codes].filter(([, code]) => code === '??').map(([path]) => path);
  const paths = [...new Set([...indexed.keys(), ...untracked])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    throwIfAborted(signal);
    // Paths come from the top of the work tree; all are at or below `cwd`, whose own path is the prefix.
    const key = path.startsWith(workTree.prefix) ? path.slice(workTree.prefix.length) : path;
    const code = codes.get(path);
    const entry = indexed.get(path);
    if (entry !== undefined && (code === undefined || code[1] === ' ')) {
      entries.set(key, `index ${entry}`);
      continue;
    }
    const described = await describeEntry(join(workTree.top, path), scope);
    if (described !== undefined && described.text !== 'missing') entries.set(key, digest(described));
  }
}

/**
 * A snapshot of the workspace at `cwd`: the walk of `fingerprintWorkspace`, with its bounds, its ignored files and
 * its abort, keeping one digest per path instead of one for all, so that two snapshots say which files changed.
 * In a git work tree: HEAD (GIT_HEAD_ENTRY), the index (GIT_INDEX_ENTRY), and the tracked and untracked files not
 * ignored by git. Elsewhere: every file, symlink (by its target) and folder but `.git` and `node_modules`. A file
 * past the content bounds counts by its size and mtime. Rejects with the abort's reason when aborted.
 */
export async function snapshotWorkspace(
  cwd: string,
  options: FingerprintOptions,
): Promise<WorkspaceSnapshot> {
  const scope = await openScope(options);
  const entries = new Map<string, string>();
  const workTree = await findWorkTree(cwd, scope.signal);
  if (workTree !== undefined) await snapshotGitState(entries, cwd, workTree, scope);
  else
    await walkTree(cwd, scope, (relative, entry) => {
      if (entry.text === 'missing') return;
      entries.set(entry.text === 'folder' ? `${relative}/` : relative, digest(entry));
    });
  throwIfAborted(scope.signal);
  return entries;
}
