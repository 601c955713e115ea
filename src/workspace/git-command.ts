import { execFile } from 'node:child_process';
import { maskUrlCredentials } from '../contract/url-credentials.js';

/** The most a git command's output may hold in memory: more is an error, never an unbounded buffer. */
const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * A git command that failed: its arguments, exit code and what it said on stderr, each with the credentials of any
 * URL in it masked (an error is printed, logged and stored by the fleet's workflows).
 */
export class GitError extends Error {
  override name = 'GitError';
  readonly args: readonly string[];
  readonly stderr: string;
  constructor(
    args: readonly string[],
    readonly exitCode: number | null,
    stderr: string,
  ) {
    const masked = args.map(maskUrlCredentials);
    const said = maskUrlCredentials(stderr);
    super(`git ${masked.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${said.trim()}`);
    this.args = masked;
    this.stderr = said;
  }
}

/**
 * The environment every git command gets: never a prompt for credentials, and none of the variables a git hook or
 * an enclosing git command sets (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE …), which would point it at another tree.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^GIT_/.test(key)) env[key] = value;
  return { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

/**
 * The `git worktree` commands of this process, one after another: each reads every worktree's admin folder, so one
 * run while another is half-way through making its own fails (`fatal: failed to read .git/worktrees/…/commondir`),
 * as loops started side by side in a batch did.
 */
let worktreeCommands: Promise<unknown> = Promise.resolve();

/**
 * Runs `git <args>` in `cwd` from argv, never through a shell; resolves with its stdout, rejects with a GitError.
 * `git worktree …` waits for this process's previous one.
 */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  if (args[0] !== 'worktree') return runGit(cwd, args);
  const run = worktreeCommands.then(() => runGit(cwd, args));
  worktreeCommands = run.catch(() => undefined);
  return run;
}

function runGit(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, env: gitEnv(), maxBuffer: MAX_GIT_OUTPUT_BYTES, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else
          reject(
            new GitError(args, typeof error.code === 'number' ? error.code : null, stderr || error.message),
          );
      },
    );
  });
}

/** `git <args>` for one line of output (a commit id, a path), trimmed. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string> {
  return (await git(cwd, args)).trim();
}

/** The non-empty lines of `git <args>`'s output. */
export async function gitLines(cwd: string, args: readonly string[]): Promise<string[]> {
  return (await git(cwd, args)).split('\n').filter((line) => line !== '');
}
