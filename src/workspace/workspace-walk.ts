import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** Files whose content a fingerprint reads, by default; past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_FILES = 20_000;

/** Bytes of content a fingerprint reads, by default (256 MiB); past it the rest count by path, size and mtime. */
export const DEFAULT_FINGERPRINT_MAX_BYTES = 256 * 1024 * 1024;

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

/** How a fingerprint (or a snapshot) is bounded and stopped. */
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

/** The ignored files of one walk: their absolute paths (rotated copies found), and their identities. */
export interface Ignored {
  paths: Set<string>;
  identities: readonly FileIdentity[];
}

/** What one fingerprint or snapshot carries through its walk: its budget, the files it leaves out, its signal. */
export interface Scope {
  budget: Budget;
  ignored: Ignored;
  signal: AbortSignal;
}

/** What is at a path, as a walk sees it: its description, and whether it is an executable regular file. */
export interface EntryDescription {
  /** `missing`, `symlink <target>`, `read <sha256>`, `unread <size> <mtime>`, `folder` or `other`. */
  text: string;
  executable: boolean;
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

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason ?? new Error('the fingerprint was aborted');
}

/** The scope of one fingerprint or snapshot: its full budget and its ignored files; rejects if already aborted. */
export async function openScope(options: FingerprintOptions): Promise<Scope> {
  const { signal } = options;
  throwIfAborted(signal);
  return {
    budget: {
      files: options.maxFiles ?? DEFAULT_FINGERPRINT_MAX_FILES,
      bytes: options.maxBytes ?? DEFAULT_FINGERPRINT_MAX_BYTES,
    },
    ignored: await resolveIgnored(options.ignore),
    signal,
  };
}

/** Whether the regular file at `path` (its lstat `stat`) is one the fingerprint leaves out. */
function isIgnored(ignored: Ignored, path: string, stat: Stats): boolean {
  if (ignored.paths.has(path)) return true;
  return stat.isFile() && ignored.identities.some(({ dev, ino }) => stat.dev === dev && stat.ino === ino);
}

/** `:(exclude,literal)` pathspecs, relative to `cwd`, of the ignored paths at or below it. */
export function excludedPathspecs(ignored: Ignored, cwd: string): string[] {
  const specs: string[] = [];
  for (const path of ignored.paths) {
    const inside = relative(resolve(cwd), path);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside))
      specs.push(`:(exclude,literal)${inside}`);
  }
  return specs;
}

/** One file's content digest when the budget allows reading it, else its size and mtime; honours the abort. */
async function describeFile(path: string, size: number, mtimeMs: number, scope: Scope): Promise<string> {
  const { budget, signal } = scope;
  if (budget.files <= 0 || budget.bytes < size) return `unread ${size} ${mtimeMs}`;
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
  return `read ${content.digest('hex')}`;
}

/**
 * What is at `path`, not following a symlink: its kind, and its content, link target or nothing; undefined for an
 * ignored file (which a walk leaves out altogether, its name included).
 */
export async function describeEntry(path: string, scope: Scope): Promise<EntryDescription | undefined> {
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return { text: 'missing', executable: false };
  if (isIgnored(scope.ignored, path, stat)) return undefined;
  const executable = stat.isFile() && (stat.mode & 0o111) !== 0;
  if (stat.isSymbolicLink()) return { text: `symlink ${await readlink(path)}`, executable };
  if (stat.isFile()) return { text: await describeFile(path, stat.size, stat.mtimeMs, scope), executable };
  return { text: stat.isDirectory() ? 'folder' : 'other', executable };
}

/**
 * The file-tree walk: every entry under `root` but `.git` and `node_modules` folders (at any depth), in a fixed
 * order, each given to `visit` as its relative path ('/' separators) and description; a file is described by its
 * content, a symlink by its target (never followed). Contents are read for the first `maxFiles` files within
 * `maxBytes` in all; past either bound a file counts by its size and mtime only, so an edit there that keeps both
 * is not seen.
 */
export async function walkTree(
  root: string,
  scope: Scope,
  visit: (relative: string, entry: EntryDescription) => void,
): Promise<void> {
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
      const described = await describeEntry(join(root, relative), scope);
      if (described !== undefined) visit(relative, described);
    }
    // Popped from the end: pushed in reverse, the folders are walked in name order. One at a time, not
    // push(...below): a folder may hold more subfolders than a call takes arguments.
    for (const sub of below.reverse()) folders.push(sub);
  }
}
