import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isInsideRoot } from '../workspace/workspace-path.js';
import { freshAgentHome } from './agent-home.js';

/** The folder codex keeps its state in, as codex finds it: CODEX_HOME, else ~/.codex; both spellings of it. */
function codexHomePaths(env: NodeJS.ProcessEnv): string[] {
  const given = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : undefined;
  const home = resolve(given ?? join(env.HOME ?? homedir(), '.codex'));
  try {
    return [home, realpathSync(home)];
  } catch {
    return [home];
  }
}

/**
 * Whether codex could refuse to make its helper aliases (`codex-linux-sandbox`, `apply_patch`): a release codex
 * will not create them when its CODEX_HOME lies in its temporary folder (Rust's `temp_dir()`: TMPDIR, else /tmp;
 * an empty TMPDIR is a prefix of every path). Both count, since in ralph's sandbox TMPDIR is dropped and /tmp it is.
 */
export function codexRefusesHelpers(env: NodeJS.ProcessEnv): boolean {
  if (process.platform === 'win32') return false;
  if (env.TMPDIR === '') return true;
  const temps = [...(env.TMPDIR === undefined ? [] : [resolve(env.TMPDIR)]), '/tmp'];
  return codexHomePaths(env).some((home) => temps.some((temp) => isInsideRoot(temp, home)));
}

/**
 * TMPDIR for a codex round whose CODEX_HOME lies in the temporary folder (a CI job's, a container's): a fresh
 * folder in the round's folder, so codex makes its helper aliases in CODEX_HOME after all. Without them its
 * sandbox fails every shell command where the system's bubblewrap predates `--argv0` (0.9.0; Debian 12 has
 * 0.8.0): codex then re-enters its sandbox helper by the name `codex-linux-sandbox`, found only through the
 * aliases' folder on PATH ("bwrap: execvp codex-linux-sandbox: No such file or directory"). Codex's sandbox
 * keeps TMPDIR writable where it lets the model write; the folder goes with the round. Empty otherwise: the
 * user's TMPDIR stays.
 */
export function codexTempDirEnv(env: NodeJS.ProcessEnv, reportFile: string): Record<string, string> {
  return codexRefusesHelpers(env) ? { TMPDIR: freshAgentHome(reportFile, 'codex-tmp') } : {};
}
