import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The argument that names a reaper among a worker's processes (ps, /proc/<pid>/cmdline). */
export const REAPER_MARK = 'ralph-fleet-reaper';

/**
 * The reaper's program: it waits for its stdin, a pipe from the worker, to close, which happens however the worker
 * ends (even by SIGKILL, when the kernel closes its files), then sweeps the round folders (the project's own sweep:
 * it SIGKILLs the process group of every round whose host is dead) and exits. Deaf to the signals a terminal sends
 * to its foreground group, and in a process group of its own, so what kills the worker's group does not reach it.
 * (`import (` with a space: the CLI bundle refuses any `import(` it cannot route, and this one runs in the reaper.)
 */
const PROGRAM = `
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
const [, , moduleUrl, dir] = process.argv;
process.stdin.resume();
process.stdin.on('close', async () => {
  try {
    const { sweepOrphanedRounds } = await import (moduleUrl);
    await sweepOrphanedRounds(dir);
  } finally {
    process.exit(0);
  }
});
`;

/** A started reaper. */
export interface Reaper {
  pid: number | undefined;
  /** Lets it go: it sweeps once and exits (a worker stopped in-process, whose process lives on). */
  stop(): void;
}

/** The round-folder module the reaper imports: the built one next to this file, or the source under tsx. */
function roundFolderModule(): { url: string; execArgv: string[] } | undefined {
  const built = new URL('../../providers/round-folder.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return { url: built.href, execArgv: [] };
  const source = new URL('../../providers/round-folder.ts', import.meta.url);
  // Run from the sources (tsx, vitest): the reaper gets this process's loader flags to import TypeScript.
  if (existsSync(fileURLToPath(source))) return { url: source.href, execArgv: process.execArgv };
  return undefined;
}

/**
 * Starts the worker's reaper: a small process that outlives a worker killed with SIGKILL just long enough to kill
 * the agents the worker left running on this host, at once, whether or not this worker is ever restarted and
 * whichever worker takes its runs over. Undefined where it cannot be started (the round-folder module not found next
 * to this file, as in an application bundling the library); the sweep at every start and at every takeover on this
 * host still applies.
 */
export function startReaper(): Reaper | undefined {
  const module = roundFolderModule();
  if (module === undefined) return undefined;
  const child = spawn(
    process.execPath,
    [...module.execArgv, '--input-type=module', '--eval', PROGRAM, REAPER_MARK, module.url, tmpdir()],
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
  );
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  child.unref();
  return {
    pid: child.pid,
    stop: () => {
      child.stdin?.end();
    },
  };
}
