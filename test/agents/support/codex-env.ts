import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The real codex installed by scripts/install-agents.mjs. */
export const codexPath = resolve(root, '.agents-cache/node_modules/.bin/codex');
/** The built ralph CLI (`npm run build`). */
export const ralphMain = resolve(root, 'dist/hosts/cli/main.js');

/** The model name the scripted provider is configured with. */
export const CODEX_MODEL = 'gpt-5-codex';
/** The environment variable codex reads the provider's API key from. */
const KEY_VAR = 'RALPH_TEST_CODEX_KEY';

/** A fresh CODEX_HOME and HOME (two folders side by side) for one test, wired to a scripted model server. */
export interface CodexHome {
  /** CODEX_HOME: holds config.toml, and where codex would keep sessions. */
  dir: string;
  /** The environment for codex, or for ralph, whose child inherits it. */
  env: NodeJS.ProcessEnv;
  /** Every file under CODEX_HOME/sessions (rollouts codex saved), relative paths. */
  sessionFiles(): string[];
  cleanup(): Promise<void>;
}

/** Options of a CODEX_HOME. */
export interface CodexHomeOptions {
  /** The scripted server's `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** TOML appended to config.toml (the user's own settings, e.g. an `[mcp_servers.ralph]` table). */
  extraToml?: string;
  /** Top-level TOML keys of the user's own settings (e.g. `sandbox_mode = "danger-full-access"`), before any table. */
  userKeys?: string;
}

const tomlString = (text: string): string => JSON.stringify(text);

/**
 * Writes a config.toml that points codex at the scripted server: a provider of its own on the Responses wire API
 * (codex 0.17x ignores OPENAI_BASE_URL), no retries (a 500 or a cut stream fails the turn at once), and a short
 * idle timeout. Nothing of the machine's own codex configuration is read: CODEX_HOME and HOME are fresh. They are
 * two folders, neither inside the other, as ralph's sandbox needs: it replaces the home with an empty one and binds
 * CODEX_HOME writable, which it cannot do for a folder that holds the home.
 * CODEX_HOME lies in os.tmpdir() on purpose, as a CI job's may: there codex makes no helper aliases, and with a
 * system bubblewrap older than 0.9.0 its sandbox works only because the preset gives it a TMPDIR of its own
 * (src/providers/codex-temp-dir.ts). A test that starts codex itself, not through the preset, gets no such TMPDIR.
 */
export async function codexHome(options: CodexHomeOptions): Promise<CodexHome> {
  const root = await mkdtemp(join(tmpdir(), 'ralph-codex-home-'));
  const dir = join(root, 'codex-home');
  const home = join(root, 'home');
  await mkdir(dir);
  await mkdir(home);
  const config = [
    `model = ${tomlString(CODEX_MODEL)}`,
    'model_provider = "scripted"',
    'approval_policy = "never"',
    options.userKeys ?? '',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${tomlString(options.baseUrl)}`,
    'wire_api = "responses"',
    `env_key = "${KEY_VAR}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 60000',
    '',
    options.extraToml ?? '',
  ].join('\n');
  await writeFile(join(dir, 'config.toml'), config);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CODEX_HOME: dir,
    HOME: home,
    [KEY_VAR]: 'scripted-key',
    RUST_LOG: 'error',
    // A CI proxy must not stand between codex and the scripted server on loopback.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  delete env.RALPH_DEPTH;
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  delete env.CODEX_API_KEY;
  const sessions = join(dir, 'sessions');
  return {
    dir,
    env,
    sessionFiles: () =>
      existsSync(sessions)
        ? readdirSync(sessions, { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => join(entry.parentPath, entry.name).slice(sessions.length + 1))
        : [],
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
