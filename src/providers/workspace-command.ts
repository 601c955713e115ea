import { spawn } from 'node:child_process';
import { groupDied, signalGroup } from './process-group.js';
import { TailBuffer } from './tail-buffer.js';

/** How one workspace command runs. */
export interface WorkspaceCommandOptions {
  cwd: string;
  /** After this long the command's process group is stopped and the result says `timedOut`. */
  timeoutMs: number;
  /** How long a stopped command gets between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Bytes kept of each of stdout and stderr (the tail: the end of a log is where the error is). */
  maxOutputBytes: number;
  /** Aborting it stops the command the same way a timeout does. */
  signal?: AbortSignal;
}

/** What a finished workspace command left behind. */
export interface WorkspaceCommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: string;
  stderr: string;
}

/** The kept tail, saying how much came before it. */
function tailText(buffer: TailBuffer): string {
  const kept = buffer.text();
  return buffer.dropped === 0 ? kept : `[… ${buffer.dropped} earlier bytes dropped]\n${kept}`;
}

/** How long a killed group may take to be gone before the call stops waiting for it. */
const REAP_WAIT_MS = 1_000;

/**
 * Runs one command from an argv array, never through a shell, in its own process group with stdin closed. A
 * timeout or an abort sends SIGTERM to the group and SIGKILL after the grace; once the program exits, whatever it
 * left running in its group is killed too, so nothing a command started outlives the call. Resolves only after
 * the process and its group are gone, whatever its exit status; rejects only when the program could not start.
 */
export function runWorkspaceCommand(
  argv: readonly string[],
  options: WorkspaceCommandOptions,
): Promise<WorkspaceCommandResult> {
  const [program, ...args] = argv;
  if (program === undefined || program.length === 0) {
    return Promise.reject(new Error('argv must name a program'));
  }
  if (options.signal?.aborted)
    return Promise.reject(new Error('the round was aborted before the command started'));

  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    const stdout = new TailBuffer(options.maxOutputBytes);
    const stderr = new TailBuffer(options.maxOutputBytes);
    child.stdout.on('data', (chunk: Buffer) => stdout.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.write(chunk));

    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const stop = () => {
      if (child.pid === undefined || killTimer !== undefined) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      }, options.killGraceMs);
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanUp = () => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.once('error', (error) => {
      if (child.pid !== undefined) return; // a started process reports through 'close'
      cleanUp();
      reject(new Error(`could not start "${program}": ${error.message}`));
    });
    child.once('exit', () => {
      // The leader is gone: stragglers in its group are killed, and a grandchild that left the group but still
      // holds the pipes cannot keep the call open past the grace.
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, options.killGraceMs);
    });
    child.once('close', async (exitCode, signal) => {
      cleanUp();
      if (child.pid !== undefined) await groupDied(child.pid, REAP_WAIT_MS);
      resolve({
        exitCode,
        signal,
        timedOut,
        aborted,
        stdout: tailText(stdout),
        stderr: tailText(stderr),
      });
    });
  });
}
