import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every file under `dir` (relative path → content). */
export function filesUnder(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = readFileSync(path, 'utf8');
  }
  return files;
}

/** A user's HOME for one test, holding an agent CLI's configuration folder as the user keeps it. */
export interface UserHome {
  /** HOME. */
  dir: string;
  /** The agent's configuration folder in it (e.g. ~/.qwen), created empty. */
  configDir: string;
  /** The environment for ralph, whose child inherits it: HOME, and none of the machine's own agent settings. */
  env: NodeJS.ProcessEnv;
  /** Every file under the configuration folder with its content: what a run must leave unchanged. */
  snapshot(): Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A fresh HOME with an empty `configFolder`, and an environment without the variables whose names start with one of
 * `dropPrefixes` (the machine's own keys and settings for the agent), nor RALPH_DEPTH.
 */
export async function userHome(configFolder: string, dropPrefixes: string[]): Promise<UserHome> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-user-home-'));
  const configDir = join(dir, configFolder);
  await mkdir(configDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    // A CI proxy must not stand between the agent and the scripted server on loopback.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  for (const name of Object.keys(env))
    if (name === 'RALPH_DEPTH' || dropPrefixes.some((prefix) => name.startsWith(prefix))) delete env[name];
  return {
    dir,
    configDir,
    env,
    snapshot: () => filesUnder(configDir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
