import { currentDepth, RALPH_DEPTH_ENV } from '../process/nesting-depth.js';
import { startInGroup } from '../process/start-in-group.js';
import type { TailBuffer } from '../process/tail-buffer.js';

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
  /** The environment the command inherits, whose RALPH_DEPTH it runs one deeper than; default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
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

/**
 * Runs one command from an argv array, never through a shell, in its own process group with stdin closed, one
 * Ralph level deeper than its host (RALPH_DEPTH + 1, as a command child gets, so a `ralph` it runs meets the depth
 * guard). A timeout or an abort stops the group (SIGTERM, SIGKILL after the grace); whatever the program left in its
 * group when it exits is stopped too, so nothing a command started outlives the call. Resolves only after the
 * process and its group are gone, whatever its exit status; rejects only when the program could not start.
 */
export async function runWorkspaceCommand(
  argv: readonly string[],
  options: WorkspaceCommandOptions,
): Promise<WorkspaceCommandResult> {
  const [program] = argv;
  if (program === undefined || program.length === 0) throw new Error('argv must name a program');
  if (options.signal?.aborted) throw new Error('the round was aborted before the command started');

  const baseEnv = options.baseEnv ?? process.env;
  const child = await startInGroup(argv, {
    cwd: options.cwd,
    env: { ...baseEnv, [RALPH_DEPTH_ENV]: String(currentDepth(baseEnv) + 1) },
    maxOutputBytes: options.maxOutputBytes,
    graceMs: options.killGraceMs,
  }).catch((error: Error) => {
    throw new Error(`could not start "${program}": ${error.message}`, { cause: error });
  });

  let timedOut = false;
  let aborted = false;
  const timeout = setTimeout(() => {
    timedOut = true;
    child.stop();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    child.stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  try {
    const { code, signal, stdout, stderr } = await child.exited;
    return { exitCode: code, signal, timedOut, aborted, stdout: tailText(stdout), stderr: tailText(stderr) };
  } finally {
    clearTimeout(timeout);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
