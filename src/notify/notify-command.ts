import { exitWithin } from '../process/exit-within.js';
import { type GroupProcess, startInGroup } from '../process/start-in-group.js';

/** Bytes kept of a notify command's output: only the first line of its stderr is ever shown. */
const KEPT_OUTPUT_BYTES = 4_096;
/** How long a notify command stopped at its timeout gets between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 1_000;

/** The first line of what a failed command printed on stderr, bounded, or nothing. */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line === '' ? '' : `: ${line.slice(0, 200)}`;
}

/**
 * Runs a notify command once, from argv (never through a shell), with the notification's JSON on stdin, in the
 * current directory, in a process group of its own that is gone when this settles: at `timeoutMs` (or on abort) the
 * group gets SIGTERM, then SIGKILL a second later. Its output is kept to a few KiB. Resolves with null when it exited
 * 0, else with why not. Never rejects.
 */
export async function runNotifyCommand(
  argv: readonly string[],
  json: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string | null> {
  let child: GroupProcess;
  try {
    child = await startInGroup(argv, {
      cwd: process.cwd(),
      env: process.env,
      input: `${json}\n`,
      maxOutputBytes: KEPT_OUTPUT_BYTES,
      graceMs: STOP_GRACE_MS,
      signal,
    });
  } catch (error) {
    return `could not start: ${(error as Error).message}`;
  }
  const exit = await exitWithin(child, timeoutMs);
  if (exit.timedOut) return `still running after ${timeoutMs} ms; stopped`;
  if (exit.code === 0) return null;
  const how = exit.code === null ? `ended by ${exit.signal ?? 'a signal'}` : `exited ${exit.code}`;
  return `${how}${firstLine(exit.stderr.text())}`;
}
