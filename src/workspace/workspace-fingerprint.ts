import { spawn } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** Files whose content a fingerprint reads, by default; past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_FILES = 20_000;

/** Bytes of content a fingerprint reads, by default (256 MiB); past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_BYTES = 256 * 1024 * 1024;

/** Bytes of `git status` output parsed for untracked files (it is hashed whole either way). */
const MAX_STATUS_BYTES = 64 * 1024 * 1024;

/** Folders the file-tree walk never enters: the repository's own store and installed dependencies. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** A file by its device and inode: the same file under any path it is reached by. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * Files a fingerprint leaves out, because ralph itself writes them while the run goes (its recording, its own
 * stdout or stderr redirected into the workspace): were they counted, every round would change the workspace.
 */
export interface IgnoredFiles {
  /** Absolute paths, each with its rotated copies (`run.jsonl.1`, `run.jsonl.2`, …). */
  paths?: readonly string[];
  /** Files by identity, under whatever path they are in the workspace. */
  identities?: readonly FileIdentity[];
}

/** How a fingerprint is bounded and stopped. */
export interface FingerprintOptions {
  /** Aborting it stops the fingerprint (and any git it runs); the promise rejects with the reason. */
  signal: AbortSignal;
  /** Files whose content is read; default DEFAULT_FINGERPRINT_MAX_FILES. */
  maxFiles?: number;
  /** Bytes of content read in all; default DEFAULT_FINGERPRINT_MAX_BYTES. */
  maxBytes?: number;
  /** Files left out (ralph's own output); default none. */
  ignore?: IgnoredFiles;
}

/** What is left of the content budget: files and bytes still to be read. */
interface Budget {
  files: number;
  bytes: number;
}

/** The ignored files of one fingerprint: their absolute paths (rotated copies found), and their identities. */
interface Ignored {
  paths: Set<string>;
  identities: readonly FileIdentity[];
}

/** What one fingerprint carries through its walk: its budget, the files it leaves out, its abort signal. */
interface Scope {
  budget: Budget;
  ignored: Ignored;
  signal: AbortSignal;
}

const ROTATED_COPY = /^\.\d+$/;

/** The ignored paths made absolute, with the rotated copies (`<name>.<n>`) that exist beside each. */
async function resolveIgnored(ignore: IgnoredFiles | undefined): Promise<Ignored> {
  const paths = new Set<string>();
  for (const given of ignore?.paths ?? []) {
    const path = resolve(given);
    paths.add(path);
    const name = basename(path);
    for (const sibling of await readdir(dirname(path)).catch(() => []))
      if (sibling.startsWith(name) && ROTATED_COPY.test(sibling.slice(name.length)))
        paths.add(join(dirname(path), sibling));
  }
  return { paths, identities: ignore?.identities ?? [] };
}

/** Whether the regular file at `path` (its lstat `stat`) is one the fingerprint leaves out. */
function isIgnored(ignored: Ignored, path: string, stat: Stats): boolean {
  if (ignored.paths.has(path)) return true;
  return stat.isFile() && ignored.identities.some(({ dev, ino }) => stat.dev === dev && stat.ino === ino);
}

/** `:(exclude,literal)` pathspecs, relative to `cwd`, of the ignored paths at or below it. */
function excludedPathspecs(ignored: Ignored, cwd: string): string[] {
  const specs: string[] = [];
  for (const path of ignored.paths) {
    const inside = relative(resolve(cwd), path);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside))
      specs.push(`:(exclude,literal)${inside}`);
  }
  return specs;
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

/**
 * Hashes what is at `path` (not following a symlink), preceded by `name`: its kind, and its content, link target or
 * nothing; an ignored file is left out altogether, its name included.
 */
async function hashEntry(hash: Hash, name: string, path: string, scope: Scope): Promise<void> {
  const { budget, signal } = scope;
  const stat = await lstat(path).catch(() => undefined);
  if (stat !== undefined && isIgnored(scope.ignored, path, stat)) return;
  field(hash, name);
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
async function hashTree(hash: Hash, root: string, scope: Scope): Promise<void> {
  const { signal } = scope;
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
      await hashEntry(hash, relative, join(root, relative), scope);
    }
    // Popped from the end: pushed in reverse, the folders are walked in name order. One at a time, not
    // push(...below): a folder may hold more subfolders than a call takes arguments.
    for (const sub of below.reverse()) folders.push(sub);
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
async function hashGitState(hash: Hash, cwd: string, scope: Scope): Promise<boolean> {
  const { signal } = scope;
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
  // Ralph's own files by path are left out of every git command; by identity, their content is left out below.
  const paths = ['--', '.', ...excludedPathspecs(scope.ignored, cwd)];
  field(hash, 'status');
  const status = await git(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...paths],
    cwd,
    signal,
    hash,
    MAX_STATUS_BYTES,
  );
  if (status.code !== 0) throw new Error(`git status failed in ${cwd} (exit code ${status.code})`);
  // Staged against HEAD (or the empty tree before the first commit), then the work tree against the index.
  field(hash, 'staged');
  await git(['diff', '--cached', '--binary', '--no-ext-diff', '--no-textconv', ...paths], cwd, signal, hash);
  field(hash, 'unstaged');
  await git(['diff', '--binary', '--no-ext-diff', '--no-textconv', ...paths], cwd, signal, hash);
  for (const path of untrackedPaths(status.kept)) {
    throwIfAborted(signal);
    await hashEntry(hash, `untracked ${path}`, join(top, path), scope);
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
  const { signal } = options;
  throwIfAborted(signal);
  const scope: Scope = {
    budget: {
      files: options.maxFiles ?? DEFAULT_FINGERPRINT_MAX_FILES,
      bytes: options.maxBytes ?? DEFAULT_FINGERPRINT_MAX_BYTES,
    },
    ignored: await resolveIgnored(options.ignore),
    signal,
  };
  const hash = createHash('sha256');
  if (!(await hashGitState(hash, cwd, scope))) {
    field(hash, 'tree');
    await hashTree(hash, cwd, scope);
  }
  throwIfAborted(signal);
  return hash.digest('hex');
}
