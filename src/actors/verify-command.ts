import { MAX_DURATION_MS } from '../contract/duration.js';
import { RalphError } from '../contract/errors.js';
import { positiveSafeInteger } from '../contract/integers.js';
import type { VerifyOutcome } from '../contract/types.js';
import type { VerifyRequest } from '../machines/ralph.machine.js';
import { exitWithin } from '../process/exit-within.js';
import { currentDepth, RALPH_DEPTH_ENV } from '../process/nesting-depth.js';
import { processSandbox } from '../process/sandbox-spec.js';
import { type ShellWordsProblem, splitShellWords } from '../process/shell-words.js';
import { type GroupProcess, startInGroup } from '../process/start-in-group.js';
import { isDirectory } from '../workspace/directory.js';

/**
 * One run of the verify command: what the verify actor asks for (the run and round aside), and the environment it
 * inherits, whose RALPH_DEPTH it runs one deeper than; default `process.env`.
 */
export type VerifyCommandRun = Omit<VerifyRequest, 'runId' | 'round'> & { env?: NodeJS.ProcessEnv };

/** The line over each stream's part of the tail when both streams said something. */
const STDOUT_LABEL = '[stdout]\n';
const STDERR_LABEL = '\n[stderr]\n';

/** The last `limit` UTF-16 units of `text`, never starting in the middle of a surrogate pair. */
function lastChars(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const tail = limit <= 0 ? '' : text.slice(-limit);
  const first = tail.charCodeAt(0);
  return first >= 0xdc00 && first <= 0xdfff ? tail.slice(1) : tail;
}

/** The two streams' tails in at most `limit` characters, labelled when both have something. */
export function combinedTail(stdout: string, stderr: string, limit: number): string {
  if (stdout === '' || stderr === '') return lastChars(stdout + stderr, limit);
  const room = limit - STDOUT_LABEL.length - STDERR_LABEL.length;
  if (room < 2) return lastChars(`${stdout}\n${stderr}`, limit);
  // Each stream gets half; one that needs less leaves the rest to the other.
  const half = Math.floor(room / 2);
  const err = lastChars(stderr, stdout.length < half ? room - stdout.length : half);
  const out = lastChars(stdout, room - err.length);
  return `${STDOUT_LABEL}${out}${STDERR_LABEL}${err}`;
}

/** Why a program could not start, in words, from the spawn error's code. */
function startProblem(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `it was not found (${error.message})`;
  if (error.code === 'EACCES') return `it is not executable (${error.message})`;
  return error.message;
}

/** The abort's reason as the rejection, an Error when the signal carries none. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('the verify command was aborted');
}

/**
 * Runs the verify command once, from argv, never through a shell, in the workspace, in a process group of its own
 * (the project's one runner: counted among the live groups the exit hook kills), with stdin closed and one Ralph
 * level deeper than `env` (RALPH_DEPTH + 1, so a `ralph` it runs meets the depth guard). Resolves with its exit
 * status and the tail of its output once no process of its group is left (bounded: whatever a stop cannot kill
 * still holds the call at most the grace plus the runner's settle margin); a command that exits leaves nothing of
 * its group behind either. On timeout the group gets SIGTERM, then SIGKILL after the grace, and it resolves with
 * `timedOut`. On abort, the same stop, then it rejects with the abort's reason. Rejects with an Error naming the
 * command and why when it cannot start: a program not found or not executable, a workspace that is not a folder.
 */
export async function runVerifyCommand(
  request: VerifyCommandRun,
  options: { signal: AbortSignal },
): Promise<VerifyOutcome> {
  const { signal } = options;
  const [program] = request.verify.argv;
  if (program === undefined || program === '') throw new Error('the verify command names no program');
  const timeoutMs = positiveSafeInteger(request.verify.timeoutMs, 'the verify timeout');
  if (timeoutMs > MAX_DURATION_MS)
    throw new RangeError(`the verify timeout must be at most ${MAX_DURATION_MS} ms`);
  const maxOutputChars = positiveSafeInteger(request.verify.maxOutputChars, 'the verify output cap');
  const graceMs = request.terminationGraceMs;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0)
    throw new RangeError('the verify termination grace must be a whole number of milliseconds from 0');
  if (signal.aborted) throw abortReason(signal);
  const shown = JSON.stringify(program);
  if (!isDirectory(request.cwd))
    throw new Error(
      `the verify command ${shown} could not start: the workspace ${request.cwd} is not a folder`,
    );

  const baseEnv = request.env ?? process.env;
  const boxed =
    request.sandbox === undefined
      ? undefined
      : processSandbox(
          request.sandbox,
          { cwd: request.cwd, writesWorkspace: true, programs: request.verify.argv },
          baseEnv,
        );
  const started = performance.now();
  let child: GroupProcess;
  try {
    child = await startInGroup(request.verify.argv, {
      cwd: request.cwd,
      ...(boxed === undefined ? {} : { sandbox: boxed.spec }),
      env: { ...(boxed?.env ?? baseEnv), [RALPH_DEPTH_ENV]: String(currentDepth(baseEnv) + 1) },
      // A UTF-16 unit is at most 3 UTF-8 bytes (a 4-byte character is 2 units): this keeps enough of each stream.
      maxOutputBytes: maxOutputChars * 3,
      graceMs,
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    throw new Error(`the verify command ${shown} could not start: ${startProblem(error as Error)}`, {
      cause: error,
    });
  }

  const exit = await exitWithin(child, timeoutMs);
  // An abort also stopped the group (the runner listens to the signal); the caller asked for nothing else.
  if (signal.aborted) throw abortReason(signal);
  return {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: exit.timedOut,
    durationMs: Math.round(performance.now() - started),
    outputTail: combinedTail(exit.stdout.text(), exit.stderr.text(), maxOutputChars),
  };
}

/** The shell syntax a verify command line was refused for, as the line has it. */
function shellSyntaxFound(problem: Exclude<ShellWordsProblem, { kind: 'no-program' }>): string {
  switch (problem.kind) {
    case 'variable':
      return `$${problem.name}`;
    case 'comment':
      return '#';
    case 'glob':
      return problem.pattern;
    case 'operator':
      return problem.op;
  }
}

/**
 * Splits a verify command line such as `npm test -- --run` into argv by POSIX shell-word rules (quotes and
 * backslashes), without a shell and without the environment. Anything only a shell could do, an operator (`&&`,
 * `|`, `;`, `>`), a glob (`*`), a comment or a variable (`$X`), is refused with a `refused` RalphError saying what
 * it found; so is a line that names no program. `flag` names the option in the refusal (`--notify-command` reads
 * its line by the same rules).
 */
export function parseVerifyCommand(text: string, flag = '--verify'): string[] {
  const words = splitShellWords(text, () => undefined);
  if ('argv' in words) return words.argv;
  const { problem } = words;
  if (problem.kind === 'no-program') {
    throw new RalphError({
      code: 'refused',
      message: `${flag} must name a program to run (got ${JSON.stringify(text)})`,
    });
  }
  throw new RalphError({
    code: 'refused',
    message: `${flag} takes a program and its arguments, not a shell line (found ${JSON.stringify(shellSyntaxFound(problem))}); wrap shell syntax in sh -c '…'`,
  });
}
