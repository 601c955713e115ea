import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from './processes.js';

/** The package root: where `--import tsx` resolves, so the host script can import src/ as TypeScript. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const hostScript = fileURLToPath(new URL('../fixtures/hosts/round-host.ts', import.meta.url));

/** How the host script ends (see test/fixtures/hosts/round-host.ts). */
export type HostEnding = 'finish' | 'wait' | 'throw' | 'exit';

/** Where a host process works: its own TMPDIR, the workspace, and the fakes' pid log. */
export interface HostPlace {
  tmp: string;
  workspace: string;
  pidLog: string;
}

/** A host process running one ralph call, and the promise of its end. */
export interface Host {
  pid: number;
  kill(signal: NodeJS.Signals): void;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts a host process (Node running the host script from src/ via tsx) whose call runs the fake agent `fixture`
 * with `args`; `waitPids` is how many pids the fakes log before a `throw` or `exit` host dies.
 */
export function startHost(
  ending: HostEnding,
  place: HostPlace,
  [fixture, ...args]: [string, ...string[]],
  waitPids = 1,
): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', hostScript, ending, fixture, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv({
      TMPDIR: place.tmp,
      HOST_WORKSPACE: place.workspace,
      FIXTURE_PID_LOG: place.pidLog,
      HOST_WAIT_PIDS: String(waitPids),
    }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const ended = new Promise<Awaited<Host['ended']>>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { pid: child.pid as number, kill: (signal) => child.kill(signal), ended };
}
