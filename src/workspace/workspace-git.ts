import { spawn } from 'node:child_process';
import type { Hash } from 'node:crypto';
import { excludedPathspecs, type Scope } from './workspace-walk.js';

/** Bytes of `git status` (or `git ls-files`) output parsed; it is hashed whole either way. */
export const MAX_STATUS_BYTES = 64 * 1024 * 1024;

/** What a git command did: its exit code (null when git is not there or died of a signal). */
export interface GitRun {
  code: number | null;
  /** Its stdout, up to `keep` bytes. */
  kept: Buffer;
}

/**
 * What every git command here runs with: no fsmonitor (no daemon is left behind), no hooks, and no look inside a
 * submodule's work tree, only at the commit its gitlink names. An agent may leave a repository of its own in the
 * workspace, with a filter or a hook in its config; `git status` and `git diff` would run a git in it to see
 * whether it is dirty, which would run them outside the agent's sandbox.
 */
const SAFE_CONFIG = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'diff.ignoreSubmodules=dirty',
  '-c',
  'core.quotePath=false',
];

/**
 * Runs git from argv (no shell) in `cwd`, its whole stdout hashed into `hash` when given and kept up to `keep`
 * bytes; stderr ignored. Without optional locks (it never writes the index under an agent's feet), with the
 * SAFE_CONFIG. An abort kills it and rejects with the reason.
 */
export function git(
  args: string[],
  cwd: string,
  signal: AbortSignal,
  hash?: Hash,
  keep = 0,
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...SAFE_CONFIG, ...args], {
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

/** The git work tree `cwd` is in: its top, and `cwd`'s own path below it ('' at the top, else ending in '/'). */
export interface WorkTree {
  top: string;
  prefix: string;
}

/** The work tree `cwd` is in, or undefined when it is in none (or git is missing). */
export async function findWorkTree(cwd: string, signal: AbortSignal): Promise<WorkTree | undefined> {
  const where = await git(
    ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--show-prefix'],
    cwd,
    signal,
    undefined,
    64 * 1024,
  );
  const [inside, top, prefix] = where.kept.toString('utf8').split('\n');
  if (where.code !== 0 || inside !== 'true' || top === undefined || top === '') return undefined;
  return { top, prefix: prefix ?? '' };
}

/** The commit HEAD names, or 'no HEAD' before the first commit. */
export async function headCommit(cwd: string, signal: AbortSignal): Promise<string> {
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], cwd, signal, undefined, 1024);
  return head.code === 0 ? head.kept.toString('utf8').trim() : 'no HEAD';
}

/** The pathspecs every git command of a walk ends with: `cwd` and below, ralph's own files by path left out. */
export function walkPathspecs(scope: Scope, cwd: string): string[] {
  return ['--', '.', ...excludedPathspecs(scope.ignored, cwd)];
}

/**
 * `git status --porcelain=v1 -z --untracked-files=all` for the part of the work tree at and below `cwd`, its whole
 * output hashed into `hash` when given and kept up to MAX_STATUS_BYTES; throws when git fails.
 */
export async function gitStatus(cwd: string, scope: Scope, hash?: Hash): Promise<Buffer> {
  const args = ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...walkPathspecs(scope, cwd)];
  const status = await git(args, cwd, scope.signal, hash, MAX_STATUS_BYTES);
  if (status.code !== 0) throw new Error(`git status failed in ${cwd} (exit code ${status.code})`);
  return status.kept;
}

/** One record of `git status --porcelain=v1 -z`: its two-letter code (`??` untracked) and its path from the top. */
export interface StatusRecord {
  code: string;
  path: string;
}

/** The records of `git status --porcelain=v1 -z` output. */
export function statusRecords(status: Buffer): StatusRecord[] {
  const records = status.toString('utf8').split('\0');
  const parsed: StatusRecord[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] as string;
    if (record.length < 4) continue;
    parsed.push({ code: record.slice(0, 2), path: record.slice(3) });
    // A rename or copy is followed by its source path, which is not a record of its own.
    if (record[0] === 'R' || record[0] === 'C') i += 1;
  }
  return parsed;
}
