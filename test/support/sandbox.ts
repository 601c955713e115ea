import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { type Finished, spawnRalph } from '../fixtures/cli-agents/harness.js';

/**
 * Why the sandbox tests are skipped here, or undefined when they run: the sandbox is Linux-only, and on Linux they
 * always run (a missing bubblewrap fails them: `.ci/run` installs it).
 */
export const NO_SANDBOX_PLATFORM: string | undefined =
  process.platform === 'linux' ? undefined : `the sandbox is Linux-only (this is ${process.platform})`;

/**
 * Where the sandbox tests keep the homes and workspaces that must not be in /tmp (inside the sandbox /tmp is private,
 * so a target there would prove nothing about the rest of the file system): a git-ignored folder of the project.
 */
export const SCRATCH_OUTSIDE_TMP = fileURLToPath(new URL('../../.sandbox-scratch/', import.meta.url));

/** A temporary folder (in `base`, default the system's), removed once the test that made it has finished. */
export function tempDir(prefix: string, base: string = tmpdir()): string {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `ralph <args>` to its end with HOSTILE_RALPH_PID set to ralph's own pid, which it also returns. */
export async function ralphKnowingItsPid(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Finished & { pid: number }> {
  const { child, finished } = spawnRalph(args, { ...options, exportPidAs: 'HOSTILE_RALPH_PID' });
  return { ...(await finished), pid: child.pid as number };
}

/** The pids of the live (not zombie) processes on this machine whose command line holds `token`. */
export function processesHolding(token: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}
