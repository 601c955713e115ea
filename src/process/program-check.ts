import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Why a child's program cannot be started: not found (on PATH, or at the path given), or found but not runnable. */
export type ProgramProblem =
  | { kind: 'not-found'; program: string; onPath: boolean; path?: string }
  | { kind: 'not-executable'; program: string; path: string };

/**
 * A round's program that cannot be started, found before any round starts: what `SubagentProvider.preflight`
 * throws. `problem` says which way, so a host can name its own flag for the fix.
 */
export class ProgramUnavailableError extends Error {
  readonly problem: ProgramProblem;

  constructor(problem: ProgramProblem) {
    const shown = JSON.stringify(problem.program);
    super(
      problem.kind === 'not-executable'
        ? `cannot start the agent program ${shown}: ${problem.path} is not an executable file`
        : problem.onPath
          ? `cannot start the agent program ${shown}: it was not found on PATH`
          : `cannot start the agent program ${shown}: ${problem.path} does not exist`,
    );
    this.name = 'ProgramUnavailableError';
    this.problem = problem;
  }
}

/** What is at `path`, or undefined when nothing is or it cannot be looked at (a PATH folder this user cannot enter). */
function statOf(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

const isFile = (path: string): boolean => statOf(path)?.isFile() === true;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the file a spawn of `program` in `cwd` would run, as execvp does: a name with a slash is a path (relative
 * to `cwd`), a bare name is looked up in the PATH of `env`. Throws a ProgramUnavailableError when there is none, or
 * when the file found cannot be run (no execute bit, a folder); returns its path otherwise.
 */
export function resolveProgram(program: string, cwd: string, env: NodeJS.ProcessEnv): string {
  if (program.includes('/')) {
    const path = isAbsolute(program) ? program : resolve(cwd, program);
    if (statOf(path) === undefined)
      throw new ProgramUnavailableError({ kind: 'not-found', program, onPath: false, path });
    if (!isFile(path) || !isExecutable(path))
      throw new ProgramUnavailableError({ kind: 'not-executable', program, path });
    return path;
  }
  let unrunnable: string | undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(resolve(cwd, dir), program);
    if (!isFile(path)) continue;
    if (isExecutable(path)) return path;
    unrunnable ??= path;
  }
  if (unrunnable !== undefined)
    throw new ProgramUnavailableError({ kind: 'not-executable', program, path: unrunnable });
  throw new ProgramUnavailableError({ kind: 'not-found', program, onPath: true });
}
