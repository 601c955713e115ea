import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChildRequest, SubagentProvider } from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf } from '../contract/usage.js';
import { freshAgentHome } from './agent-home.js';
import {
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandSandboxNeeds,
  commandProvider,
  passThrough,
} from './command.js';
import { jsonLines } from './json-lines.js';
import { REPORT_TOOL_SERVER, reportToolReader, reportToolServer } from './report-tool-server.js';

/** Options of the OpenCode preset. */
export type OpencodeProviderOptions = CommandPresetOptions;

/**
 * One round's OpenCode state: a config file (OPENCODE_CONFIG, merged over the user's own) that adds ralph's report
 * tool as a local MCP server and lets the agent edit files (or, `readOnly`, denies every edit: the file's rule comes
 * after the agent's own, so an `allow` there would open even the plan agent), and a fresh data folder (XDG_DATA_HOME: sessions,
 * snapshots) with the user's auth.json linked into it, so their credentials keep working.
 */
function roundEnv(
  userDataDir: string,
  request: ChildRequest,
  reportFile: string,
  readOnly = false,
): Record<string, string> {
  const home = freshAgentHome(reportFile, 'opencode-home');
  const { command, args } = reportToolServer(request, reportFile);
  const config = join(home, 'opencode.json');
  const settings = {
    mcp: { [REPORT_TOOL_SERVER]: { type: 'local', command: [command, ...args], enabled: true } },
    permission: { edit: readOnly ? 'deny' : 'allow' },
  };
  writeFileSync(config, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  const data = join(home, 'data');
  mkdirSync(join(data, 'opencode'), { recursive: true, mode: 0o700 });
  const auth = join(userDataDir, 'opencode', 'auth.json');
  if (existsSync(auth)) symlinkSync(auth, join(data, 'opencode', 'auth.json'));
  return { OPENCODE_CONFIG: config, XDG_DATA_HOME: data, XDG_STATE_HOME: join(home, 'state') };
}

/**
 * What an OpenCode round used: the `tokens` (input, output, cache read and write) and `cost` of every `step_finish`
 * event on its JSON event stream, summed, one turn each. The cost is OpenCode's own figure from its model catalogue:
 * zero for a model it has no price for, so the preset does not declare that it reports cost.
 */
export async function readOpencodeUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  let total: RalphUsage | null = null;
  for (const event of jsonLines(stdout)) {
    if (event.type !== 'step_finish') continue;
    const part = (event.part ?? {}) as {
      tokens?: { input?: unknown; output?: unknown; cache?: { read?: unknown; write?: unknown } };
      cost?: unknown;
    };
    const step = usageOf({
      inputTokens: part.tokens?.input,
      outputTokens: part.tokens?.output,
      cacheReadTokens: part.tokens?.cache?.read,
      cacheWriteTokens: part.tokens?.cache?.write,
      costUsd: part.cost,
    });
    total = addUsage(total, { ...step, turns: 1 });
  }
  return total;
}

/**
 * What ralph's sandbox binds in for it: opencode's config and credentials (`opencode` in the user's XDG_CONFIG_HOME
 * and XDG_DATA_HOME, by default `~/.config/opencode` and `~/.local/share/opencode`), XDG_CONFIG_HOME itself (the round
 * sets the other two), and its providers' keys.
 */
function opencodeSandboxNeeds(userConfigDir: string, userDataDir: string): CommandSandboxNeeds {
  return {
    home: [join(userConfigDir, 'opencode'), join(userDataDir, 'opencode')],
    env: ['OPENCODE_*', 'XDG_CONFIG_HOME', 'ANTHROPIC_*', 'OPENAI_*', 'OPENROUTER_*', 'GEMINI_*'],
  };
}

/**
 * OpenCode as a fresh child per round (verified with opencode-ai 1.18.33). It has no schema flag: the model reports
 * through ralph's report tool (`ralph report-tool`), registered for this round only. The argv, and why:
 * - `run`: one non-interactive turn; the prompt is read from stdin.
 * - `--pure`: no external plugins (nothing is installed or run that the round did not ask for).
 * - `--format json`: JSON events on stdout, whose `step_finish` events say what each step used.
 * - `--dir <cwd>`: the workspace is the project, so edits in it need no external-directory permission.
 * - read-only (`readOnly`, for an evaluator): `--agent plan`, OpenCode's built-in planning agent, which may not
 *   edit, and the round's config denies every edit (its plan files too). Its shell keeps the user's rules (OpenCode
 *   allows it by default), so a shell command could still write: the workspace fingerprint check catches that.
 * Permissions: edits are allowed (OPENCODE_CONFIG; denied when read-only); anything else keeps the user's rules,
 * and what would ask is refused, as nobody is there to answer. The user's own config (provider, model) is read as
 * usual; sessions go to a per-round data folder, removed with the round's folder. The report is the report file
 * alone.
 */
export function opencodeProvider(options: OpencodeProviderOptions = {}): SubagentProvider {
  const env = { ...(options.baseEnv ?? process.env), ...options.env };
  const userConfigDir = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  const userDataDir = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return commandProvider({
    name: 'opencode',
    sandboxNeeds: opencodeSandboxNeeds(userConfigDir, userDataDir),
    command: [options.path ?? 'opencode'],
    ...passThrough(options),
    roundEnv: ({ request, reportFile }) => roundEnv(userDataDir, request, reportFile, options.readOnly),
    args: ({ request }) => [
      'run',
      '--pure',
      '--format',
      'json',
      '--dir',
      request.cwd,
      ...(options.readOnly ? ['--agent', 'plan'] : []),
      ...(options.extraArgs ?? []),
    ],
    readReport: reportToolReader(options.maxOutputBytes),
    readUsage: readOpencodeUsage,
  });
}
