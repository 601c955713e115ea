import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real Claude Code that scripts/install-agents.mjs installed into the git-ignored cache. */
export const claudePath = fileURLToPath(
  new URL('../../../.agents-cache/node_modules/.bin/claude', import.meta.url),
);

/** The built CLI, as `npm run build` leaves it. */
export const cliPath = fileURLToPath(new URL('../../../dist/hosts/cli/main.js', import.meta.url));

/** Fails loudly when the tier runs without its installed agent or build: never a silent skip. */
export function assertInstalled(): void {
  if (!existsSync(claudePath))
    throw new Error(`claude is not installed at ${claudePath}: run npm run test:agents`);
  if (!existsSync(cliPath)) throw new Error(`the CLI is not built at ${cliPath}: run npm run build`);
}

/** A fresh HOME for one Claude Code run, and the environment that points it at the scripted model server. */
export interface ClaudeHome {
  home: string;
  /** The environment for claude (or for ralph, which passes it on to its claude child). */
  env: NodeJS.ProcessEnv;
  /** Registers an MCP server at user level, where Claude Code reads it: `mcpServers` in ~/.claude.json. */
  registerUserMcpServer(name: string, server: { command: string; args: string[] }): Promise<void>;
  /** Every file under ~/.claude/projects, where Claude Code saves sessions. */
  sessionFiles(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** Environment variables of the parent that must not leak into a scripted claude run. */
const DROPPED = [
  'RALPH_DEPTH',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'CLAUDE_CONFIG_DIR',
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_MAX_RETRIES',
];

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Creates a fresh HOME whose claude talks only to `baseUrl`. */
export async function claudeHome(baseUrl: string): Promise<ClaudeHome> {
  const home = await mkdtemp(join(tmpdir(), 'ralph-claude-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of DROPPED) delete env[name];
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    NO_COLOR: '1',
    // A CI proxy must not stand between claude and the scripted server on loopback.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  });
  const claudeJson = join(home, '.claude.json');
  return {
    home,
    env,
    async registerUserMcpServer(name, server) {
      await writeFile(
        claudeJson,
        JSON.stringify({ mcpServers: { [name]: { type: 'stdio', ...server, env: {} } } }, null, 2),
      );
    },
    sessionFiles: () => listFiles(join(home, '.claude', 'projects')),
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}
