import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Files whose content a fingerprint reads, by default; past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_FILES = 20_000;

/** Bytes of content a fingerprint reads, by default (256 MiB); past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_BYTES = 256 * 1024 * 1024;

/** Bytes of `git status` output parsed for untracked files (it is hashed whole either way). */
const MAX_STATUS_BYTES = 64 * 1024 * 1024;

/** Folders the file-tree walk never enters: the repository's own store and installed dependencies. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** How a fingerprint is bounded and stopped. */
export interface FingerprintOptions {
  /** Aborting it stops the fingerprint (and any git it runs); the promise rejects with the reason. */
  signal: AbortSignal;
  /** Files whose content is read; default DEFAULT_FINGERPRINT_MAX_FILES. */
  maxFiles?: number;
  /** Bytes of content read in all; default DEFAULT_FINGERPRINT_MAX_BYTES. */
  maxBytes?: number;
}

/** What is left of the content budget: files and bytes still to be read. */
interface Budget {
  files: number;
  bytes: number;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new Error('the fingerprint was aborted');
}

/** One field of a record: its length first, so no two different records hash alike. */
function field(hash: Hash, value: string | Buffer): void {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  hash.update(`${bytes.length}:`);
  hash.update(bytes);
}

/** Hashes one file's content into `hash` when the budget allows it, else its size and mtime; honours the abort. */
async function hashFile(
  hash: Hash,
  path: string,
  size: number,
  mtimeMs: number,
  budget: Budget,
  signal: AbortSignal,
) {
  if (budget.files <= 0 || budget.bytes < size) {
    field(hash, `unread ${size} ${mtimeMs}`);
    return;
  }
  budget.files -= 1;
  budget.bytes -= size;
  const content = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      throwIfAborted(signal);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      content.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  field(hash, `read ${content.digest('hex')}`);
}

/** Hashes what is at `path` (not following a symlink): its kind, and its content, link target or nothing. */
async function hashEntry(hash: Hash, path: string, budget: Budget, signal: AbortSignal): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) field(hash, 'missing');
  else if (stat.isSymbolicLink()) field(hash, `symlink ${await readlink(path)}`);
  else if (stat.isFile()) await hashFile(hash, path, stat.size, stat.mtimeMs, budget, signal);
  else field(hash, stat.isDirectory() ? 'folder' : 'other');
}

/**
 * The file-tree walk: every entry under `root` but `.git` and `node_modules` folders (at any depth), in a fixed
 * order, each as its relative path and kind; a file also as its size and content, a symlink as its target (never
 * followed). Contents are read for the first `maxFiles` files within `maxBytes` in all; past either bound a file
 * counts by its size and mtime only, so an edit there that keeps both is not seen.
 */
async function hashTree(hash: Hash, root: string, budget: Budget, signal: AbortSignal): Promise<void> {
  const folders = [''];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    throwIfAborted(signal);
    const entries = await readdir(join(root, folder), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const below: string[] = [];
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (SKIPPED_FOLDERS.has(entry.name)) continue;
        below.push(relative);
      }
      field(hash, relative);
      await hashEntry(hash, join(root, relative), budget, signal);
    }
    // Popped from the end: pushed in reverse, the folders are walked in name order.
    folders.push(...below.reverse());
  }
}

/** What a git command did: its exit code (null when git is not there or died of a signal). */
interface GitRun {
  code: number | null;
  /** Its stdout, up to `keep` bytes. */
  kept: Buffer;
}

/**
 * Runs git from argv (no shell) in `cwd`, its whole stdout hashed into `hash` when given and kept up to `keep`
 * bytes; stderr ignored. Without optional locks (it never writes the index under an agent's feet) and with a
 * fsmonitor off (no daemon is left behind). An abort kills it and rejects with the reason.
 */
function git(args: string[], cwd: string, signal: AbortSignal, hash?: Hash, keep = 0): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false', ...args], {
      cwd,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      signal,
    });
    const kept: Buffer[] = [];
    let keptBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      hash?.update(chunk);
      if (keptBytes < keep) {
        kept.push(chunk.subarray(0, keep - keptBytes));
        keptBytes += Math.min(chunk.length, keep - keptBytes);
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(signal.reason ?? error);
      else if (error.code === 'ENOENT') resolve({ code: null, kept: Buffer.alloc(0) });
      else reject(error);
    });
    child.once('close', (code) => {
      if (signal.aborted) reject(signal.reason ?? new Error('the fingerprint was aborted'));
      else resolve({ code, kept: Buffer.concat(kept) });
    });
  });
}

/** The untracked paths (relative to the repository's top) in `git status --porcelain=v1 -z` output. */
function untrackedPaths(status: Buffer): string[] {
  const records = status.toString('utf8').split('\0');
  const paths: string[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] as string;
    if (record.startsWith('?? ')) paths.push(record.slice(3));
    // A rename or copy is followed by its source path, which is not a record of its own.
    else if (record[0] === 'R' || record[0] === 'C') i += 1;
  }
  return paths;
}

/**
 * The git state under `cwd`, or false when `cwd` is not in a work tree (or git is missing): HEAD, the status of
 * every file (untracked ones included), the diff of tracked files from HEAD (index and work tree, binary
 * included), and the content of each untracked file within the budget.
 */
async function hashGitState(hash: Hash, cwd: string, budget: Budget, signal: AbortSignal): Promise<boolean> {
  const where = await git(
    ['rev-parse', '--is-inside-work-tree', '--show-toplevel'],
    cwd,
    signal,
    undefined,
    64 * 1024,
  );
  const [inside, top] = where.kept.toString('utf8').split('\n');
  if (where.code !== 0 || inside !== 'true' || top === undefined || top === '') return false;
  field(hash, 'git');
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], cwd, signal, undefined, 1024);
  field(hash, head.code === 0 ? head.kept.toString('utf8').trim() : 'no HEAD');
  field(hash, 'status');
  const status = await git(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'],
    cwd,
    signal,
    hash,
    MAX_STATUS_BYTES,
  );
  if (status.code !== 0) throw new Error(`git status failed in ${cwd} (exit code ${status.code})`);
  // Staged against HEAD (or the empty tree before the first commit), then the work tree against the index.
  field(hash, 'staged');
  await git(['diff', '--cached', '--binary', '--no-ext-diff', '--no-textconv', '--', '.'], cwd, signal, hash);
  field(hash, 'unstaged');
  await git(['diff', '--binary', '--no-ext-diff', '--no-textconv', '--', '.'], cwd, signal, hash);
  for (const path of untrackedPaths(status.kept)) {
    throwIfAborted(signal);
    field(hash, `untracked ${path}`);
    await hashEntry(hash, join(top, path), budget, signal);
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
 * the abort's reason when aborted.
 */
export async function fingerprintWorkspace(cwd: string, options: FingerprintOptions): Promise<string> {
  const { signal } = options;
  throwIfAborted(signal);
  const budget: Budget = {
    files: options.maxFiles ?? DEFAULT_FINGERPRINT_MAX_FILES,
    bytes: options.maxBytes ?? DEFAULT_FINGERPRINT_MAX_BYTES,
  };
  const hash = createHash('sha256');
  if (!(await hashGitState(hash, cwd, budget, signal))) {
    field(hash, 'tree');
    await hashTree(hash, cwd, budget, signal);
  }
  throwIfAborted(signal);
  return hash.digest('hex');
}
