import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The argument that names a reaper among a worker's processes (ps, /proc/<pid>/cmdline). */
export const REAPER_MARK = 'ralph-fleet-reaper';

/**
 * The reaper's program, run once its worker is gone: the project's own sweep of the round folders, which SIGKILLs
 * the process group of every round whose host is dead. (`import (` with a space: the CLI bundle refuses any
 * `import(` it cannot route, and this one runs in the reaper.)
 */
const PROGRAM = `
const [, , moduleUrl, dir] = process.argv;
try {
  const { sweepOrphanedRounds } = await import (moduleUrl);
  await sweepOrphanedRounds(dir);
} finally {
  process.exit(0);
}
`;

/**
 * What waits for the worker: a shell and its `cat` of a pipe from the worker (a megabyte or two, not a Node of
 * 40 MiB). The pipe closes however the worker ends, even by SIGKILL, when the kernel closes its files; `cat` then
 * ends and the shell becomes Node running the sweep. Deaf to the signals a terminal sends to its foreground group
 * (an ignored signal stays ignored across exec), and in a process group of its own, so what kills the worker's group
 * does not reach it.
 */
const WAIT_THEN_SWEEP = `trap '' INT TERM HUP; cat >/dev/null; exec "$@"`;

/** A started reaper. */
export interface Reaper {
  pid: number | undefined;
  /** Lets it go: it sweeps once and exits (a worker stopped in-process, whose process lives on). */
  stop(): void;
}

/** The round-folder module, from the `src/` or `dist/` folder that holds this module. */
const ROUND_FOLDER_MODULE = 'process/round-folder';

/**
 * The folders that may hold the round-folder module: the one above this module's folder (src/fleet/, dist/fleet/),
 * and the one above that (the CLI bundle, whose `import.meta.url` is dist/hosts/cli/ralph.cjs).
 */
const SOURCE_ROOTS = ['../', '../../'];

/** The round-folder module the reaper imports: the built one in this package, or the source under tsx. */
function roundFolderModule(): { url: string; execArgv: string[] } | undefined {
  for (const root of SOURCE_ROOTS) {
    const built = new URL(`${root}${ROUND_FOLDER_MODULE}.js`, import.meta.url);
    if (existsSync(fileURLToPath(built))) return { url: built.href, execArgv: [] };
    const source = new URL(`${root}${ROUND_FOLDER_MODULE}.ts`, import.meta.url);
    // Run from the sources (tsx, vitest): the reaper gets this process's loader flags to import TypeScript.
    if (existsSync(fileURLToPath(source))) return { url: source.href, execArgv: process.execArgv };
  }
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
  const sweep = [process.execPath, ...module.execArgv, '--input-type=module', '--eval', PROGRAM];
  const child = spawn(
    '/bin/sh',
    ['-c', WAIT_THEN_SWEEP, REAPER_MARK, ...sweep, REAPER_MARK, module.url, tmpdir()],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
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
