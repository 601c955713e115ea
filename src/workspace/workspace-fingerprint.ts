import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';
import { findWorkTree, git, gitStatus, headCommit, statusRecords, walkPathspecs } from './workspace-git.js';
import {
  describeEntry,
  type FingerprintOptions,
  openScope,
  type Scope,
  throwIfAborted,
  walkTree,
} from './workspace-walk.js';

export {
  DEFAULT_FINGERPRINT_MAX_BYTES,
  DEFAULT_FINGERPRINT_MAX_FILES,
  type FileIdentity,
  type FingerprintOptions,
  type IgnoredFiles,
} from './workspace-walk.js';

/** One field of a record: its length first, so no two different records hash alike. */
function field(hash: Hash, value: string | Buffer): void {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  hash.update(`${bytes.length}:`);
  hash.update(bytes);
}

/**
 * The git state under `cwd`, or false when `cwd` is not in a work tree (or git is missing): HEAD, the status of
 * every file (untracked ones included), the diff of tracked files from HEAD (index and work tree, binary
 * included), and the content of each untracked file within the budget.
 */
async function hashGitState(hash: Hash, cwd: string, scope: Scope): Promise<boolean> {
  const { signal } = scope;
  const workTree = await findWorkTree(cwd, signal);
  if (workTree === undefined) return false;
  field(hash, 'git');
  field(hash, await headCommit(cwd, signal));
  // Ralph's own files by path are left out of every git command; by identity, their content is left out below.
  const paths = walkPathspecs(scope, cwd);
  field(hash, 'status');
  const status = await gitStatus(cwd, scope, hash);
  // Staged against HEAD (or the empty tree before the first commit), then the work tree against the index.
  field(hash, 'staged');
  await git(['diff', '--cached', '--binary', '--no-ext-diff', '--no-textconv', ...paths], cwd, signal, hash);
  field(hash, 'unstaged');
  await git(['diff', '--binary', '--no-ext-diff', '--no-textconv', ...paths], cwd, signal, hash);
  for (const { code, path } of statusRecords(status)) {
    if (code !== '??') continue;
    throwIfAborted(signal);
    const described = await describeEntry(join(workTree.top, path), scope);
    if (described === undefined) continue;
    field(hash, `untracked ${path}`);
    field(hash, described.text);
  }
  return true;
}

/**
 * A content fingerprint of the workspace at `cwd` (sha256, hex): it changes when a tracked or untracked,
 * non-ignored file's content changes, or a file is added, removed or renamed. In a git work tree (git on PATH)
 * it covers HEAD, `git status` (untracked files included, ignored ones not), the diff from HEAD and the untracked
 * files' contents, for the part of the repository at and below `cwd`; a new commit changes it even with a clean
 * tree. Elsewhere it is a walk of the tree that skips `.git` and `node_modules` and does not follow symlinks.
 * Contents are read for at most `maxFiles` files and `maxBytes` bytes (defaults 20,000 and 256 MiB; the git diff
 * is hashed whole, as git streams it); a file past the bounds counts by its size and mtime only. Rejects with
 * the abort's reason when aborted. The files in `options.ignore` (ralph's own output) are left out: by path (with
 * their rotated copies) from the walk and every git command, by identity from the walk and the untracked files'
 * contents (an untracked file left out by identity alone still shows in the status, as a line that stays the same).
 */
export async function fingerprintWorkspace(cwd: string, options: FingerprintOptions): Promise<string> {
  const scope = await openScope(options);
  const hash = createHash('sha256');
  if (!(await hashGitState(hash, cwd, scope))) {
    field(hash, 'tree');
    await walkTree(cwd, scope, (relative, entry) => {
      field(hash, relative);
      field(hash, entry.text);
    });
  }
  throwIfAborted(scope.signal);
  return hash.digest('hex');
}
