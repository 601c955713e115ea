import { execFile } from 'node:child_process';
import { RalphError } from '../contract/errors.js';
import { sandboxBwrapMissing, sandboxCannotStart, sandboxLinuxOnly } from '../contract/sandbox-messages.js';
import { sandboxArgv } from './sandbox-argv.js';

/** The bubblewrap program ralph runs: `RALPH_BWRAP` when the operator names one, else `bwrap` on PATH. */
export function bwrapProgram(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.RALPH_BWRAP;
  return named !== undefined && named !== '' ? named : 'bwrap';
}

const checked = new Map<string, Promise<string | null>>();

/** Starts one empty sandbox, as a round would, and says why it could not, or null when it could. */
function probe(program: string): Promise<string | null> {
  // The very command line a round's start is, around a command that does nothing: what works here works there.
  const [, ...argv] = sandboxArgv(['/bin/true'], {
    network: 'keep',
    home: '/',
    writable: [],
    readOnly: [],
    homeBinds: [],
    hide: [],
    cwd: '/',
  });
  return new Promise((resolve) => {
    execFile(program, argv, { timeout: 30_000 }, (error, _out, stderr) => {
      if (error === null) return resolve(null);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolve(sandboxBwrapMissing(program));
      const said = String(stderr).trim().split('\n').at(-1) || error.message;
      resolve(sandboxCannotStart(said));
    });
  });
}

/**
 * Why no sandbox can run here (another platform than Linux, bubblewrap missing, or unable to create its
 * namespaces), or null when one can. Checked once per process and program: the answer does not change under a run.
 */
export function sandboxProblem(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (process.platform !== 'linux') return Promise.resolve(sandboxLinuxOnly(process.platform));
  const program = bwrapProgram(env);
  let answer = checked.get(program);
  if (answer === undefined) {
    answer = probe(program);
    checked.set(program, answer);
  }
  return answer;
}

/** Refuses (a `refused` RalphError, before anything starts) where no sandbox can run. */
export async function assertSandboxAvailable(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const problem = await sandboxProblem(env);
  if (problem !== null) throw new RalphError({ code: 'refused', message: problem });
}
