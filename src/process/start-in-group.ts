import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { GroupDeathWatch, groupExists, signalGroup } from './group-signals.js';
import { forgetGroup, rememberGroup } from './live-groups.js';
import { type SandboxSpec, sandboxArgv } from './sandbox-argv.js';
import { TailBuffer } from './tail-buffer.js';

/**
 * Past the point where a group got (or would get) its SIGKILL, how long the call still waits: for the group's
 * members to die, and for pipes held open by a process that left the group. SIGKILL cannot be refused, so a killed
 * process normally dies within milliseconds; a loaded machine or a process stuck in the kernel (D state, e.g. on a
 * dead network mount) can take longer, and this bounds how long such a process holds the call. It stays well under
 * the machine's own bound (the grace plus KILL_MARGIN_MS, 1 s), so a process provider always settles by itself
 * before the run would abandon it.
 */
export const SETTLE_MARGIN_MS = 500;

/** How to run one program in a process group of its own. */
export interface GroupProcessOptions {
  cwd: string;
  /** The whole environment of the program. */
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
  /** Bytes kept of each of stdout and stderr (the tail). */
  maxOutputBytes: number;
  /** How long a stopped group gets between SIGTERM and SIGKILL. */
  graceMs: number;
  /** Aborting it stops the group. */
  signal?: AbortSignal;
  /**
   * Called with the pid as soon as the process exists, in the same tick (before any event-loop turn), so a caller
   * can record the group where a sweep finds it even if this host is SIGKILLed a moment later.
   */
  onSpawn?: (pid: number) => void;
  /**
   * Runs the program in this bubblewrap sandbox: `bwrap` is the group's leader, the program its member in a PID
   * namespace of its own that dies with it. `env` is passed as given: filter it first (`sandboxEnv`).
   */
  sandbox?: Omit<SandboxSpec, 'cwd'>;
}

/** How a group process ended. */
export interface GroupExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: TailBuffer;
  stderr: TailBuffer;
  /** False only when a member was still alive at the deadline, though SIGKILLed (stuck in the kernel). */
  groupGone: boolean;
}

/** A started group process. */
export interface GroupProcess {
  /** The program's pid, which is also its process group's id. */
  pid: number;
  /** SIGTERM to the group, SIGKILL after the grace. Idempotent, and a no-op once the group is gone. */
  stop(): void;
  /**
   * Settles (never rejects) once the program exited, its pipes closed or were cut, and its group is gone: no
   * live member left, zombies aside. Bounded: at most the grace plus SETTLE_MARGIN_MS past the stop, or past the
   * program's exit when it ended on its own.
   */
  exited: Promise<GroupExit>;
}

/**
 * Runs `argv` (never through a shell) in a process group of its own and makes sure the whole group is gone before
 * `exited` settles. One policy for every caller:
 * - a stop (abort, or `stop()`) sends SIGTERM to the group and SIGKILL after the grace;
 * - when the program exits, whatever it left in its group is stopped the same way;
 * - pipes still held open by a process that left the group are cut at the same deadline as the group's death,
 *   the grace plus SETTLE_MARGIN_MS past the stop or the exit, so the call settles;
 * - while it runs the group is counted among the live groups, which the exit hook SIGKILLs if the host dies.
 * Resolves once the program runs; rejects with the spawn error when it could not start (e.g. ENOENT).
 */
export function startInGroup(argv: readonly string[], options: GroupProcessOptions): Promise<GroupProcess> {
  if (argv[0] === undefined || argv[0] === '') return Promise.reject(new Error('argv must name a program'));
  let command: readonly string[];
  try {
    command =
      options.sandbox === undefined ? argv : sandboxArgv(argv, { ...options.sandbox, cwd: options.cwd });
  } catch (error) {
    return Promise.reject(error);
  }
  const [program = '', ...args] = command;
  const removeIfMade = (options.sandbox?.removeIfMade ?? []).filter((path) => !existsSync(path));
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) return new Promise((_, reject) => child.once('error', reject));
  rememberGroup(pid);
  options.onSpawn?.(pid);

  const stdout = new TailBuffer(options.maxOutputBytes);
  const stderr = new TailBuffer(options.maxOutputBytes);
  child.stdout?.on('data', (chunk: Buffer) => stdout.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  // Past the spawn, an 'error' (a failed signal) must not crash the host; the exit status tells what happened.
  child.on('error', () => {});
  if (child.stdin !== null) {
    // A program that never reads its input closes the pipe under us (EPIPE); the input was only offered.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input);
  }

  const { graceMs, signal } = options;
  let stopped = false;
  let gone = false;
  /** When the call settles at the latest: the grace plus the margin past the first stop or the exit. */
  let settleBy: number | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let cutTimer: NodeJS.Timeout | undefined;
  const watch = new GroupDeathWatch(pid);

  const stop = () => {
    if (stopped || gone) return;
    stopped = true;
    settleBy = Math.min(settleBy ?? Number.POSITIVE_INFINITY, Date.now() + graceMs + SETTLE_MARGIN_MS);
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      watch.nudge();
    }, graceMs);
  };
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();

  child.once('exit', () => {
    // The leader is reaped by now, so the group exists only if it left something behind: one syscall to know.
    if (groupExists(pid)) stop();
    settleBy ??= Date.now() + graceMs + SETTLE_MARGIN_MS;
    cutTimer = setTimeout(
      () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      },
      Math.max(0, settleBy - Date.now()),
    );
  });

  const exited = new Promise<GroupExit>((resolve) => {
    child.once('close', (code: number | null, killedBy: NodeJS.Signals | null) => {
      clearTimeout(cutTimer);
      signal?.removeEventListener('abort', stop);
      void watch.untilGone(settleBy ?? Date.now()).then((groupGone) => {
        clearTimeout(killTimer);
        // One more SIGKILL for a member that outlived the deadline; from here on the pid is not ours to signal.
        if (!groupGone) signalGroup(pid, 'SIGKILL');
        gone = true;
        forgetGroup(pid);
        // Nothing of the sandbox runs any more: what it planted goes before anyone outside can follow it.
        for (const path of removeIfMade) rmSync(path, { recursive: true, force: true });
        resolve({ code, signal: killedBy, stdout, stderr, groupGone });
      });
    });
  });

  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      child.off('spawn', onSpawn);
      reject(error);
    };
    const onSpawn = () => {
      child.off('error', onError);
      resolve({ pid, stop, exited });
    };
    child.once('error', onError);
    child.once('spawn', onSpawn);
  });
}
