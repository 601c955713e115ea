import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChildRequest, SubagentProvider } from '../contract/types.js';
import { type RalphUsage, usageOf } from '../contract/usage.js';
import { freshAgentHome, readJsonObject } from './agent-home.js';
import { claudeResultObject } from './claude.js';
import {
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandSandboxNeeds,
  commandProvider,
  passThrough,
  presetMode,
} from './command.js';
import { REPORT_TOOL_SERVER, reportToolReader, reportToolServer } from './report-tool-server.js';

/** Options of the Droid (Factory CLI) preset. */
export interface DroidProviderOptions extends CommandPresetOptions {
  /**
   * Droid's autonomy level for the child; default 'medium' (file edits and reversible commands, no more). With
   * `readOnly` none is passed (droid exec's default, read-only), and none may be given.
   */
  auto?: 'low' | 'medium' | 'high';
}

/** The files of the user's ~/.factory that carry their sign-in (names found in the program), linked into each round. */
const AUTH_FILES = ['auth.json', 'auth.encrypted'];

/**
 * One round's Droid home (FACTORY_HOME_OVERRIDE, in the round's folder): `.factory/settings.json` is a copy of the
 * user's own (their custom models and default model); `.factory/mcp.json` holds ralph's report tool as the only MCP server; the
 * user's sign-in files are linked in. Sessions, logs and caches stay in the round's folder. Returns the home.
 */
function roundHome(userFactoryDir: string, request: ChildRequest, reportFile: string): string {
  const home = freshAgentHome(reportFile, 'droid-home');
  const dir = join(home, '.factory');
  mkdirSync(dir, { mode: 0o700 });
  const settings = readJsonObject(join(userFactoryDir, 'settings.json'));
  writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  const server = { type: 'stdio', ...reportToolServer(request, reportFile) };
  writeFileSync(
    join(dir, 'mcp.json'),
    `${JSON.stringify({ mcpServers: { [REPORT_TOOL_SERVER]: server } }, null, 2)}\n`,
  );
  for (const name of AUTH_FILES) {
    const own = join(userFactoryDir, name);
    if (existsSync(own)) symlinkSync(own, join(dir, name));
  }
  return home;
}

/** Droid's name for the report tool: `<server>___<tool>`. */
export const DROID_REPORT_TOOL = `${REPORT_TOOL_SERVER}___submit_report`;

/** Droid's name for an evaluator's verdict tool (`ralph report-tool --verdict`). */
export const DROID_VERDICT_TOOL = `${REPORT_TOOL_SERVER}___submit_verdict`;

/**
 * How the model learns of the report tool: Droid lists an MCP tool to the model only when its server was up before
 * the session began, which a round cannot count on (the tool is still callable by name), so the system prompt names it.
 */
const REPORT_TOOL_HINT =
  `End this round by calling the tool ${DROID_REPORT_TOOL} with your round report; if it is not in your tool ` +
  `list, load it first with ToolSearch "select:${DROID_REPORT_TOOL}".`;

/** The same hint for an evaluator, naming its verdict tool. */
const VERDICT_TOOL_HINT =
  `End by calling the tool ${DROID_VERDICT_TOOL} with your verdict; if it is not in your tool ` +
  `list, load it first with ToolSearch "select:${DROID_VERDICT_TOOL}".`;

/**
 * What a Droid round used, from its `-o json` result: input, output and cache tokens and its turns; `factory_credits`
 * are Factory's own units, not dollars, so no cost.
 */
export async function readDroidUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  const result = claudeResultObject(stdout);
  if (result === undefined) return null;
  const usage = (result.usage ?? {}) as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    cache_read_input_tokens?: unknown;
    cache_creation_input_tokens?: unknown;
  };
  return usageOf({
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens,
    cacheWriteTokens: usage.cache_creation_input_tokens,
    turns: result.num_turns,
    durationMs: result.duration_ms,
  });
}

/**
 * What ralph's sandbox binds in for it: the user's Droid folder (`~/.factory`, or `.factory` in their own
 * FACTORY_HOME_OVERRIDE), which holds the sign-in files each round's home links to, and its Factory settings.
 */
function droidSandboxNeeds(userFactoryDir: string): CommandSandboxNeeds {
  return { home: [userFactoryDir], env: ['FACTORY_*'] };
}

/**
 * Droid, Factory's CLI, as a fresh child per round (verified with @factory/cli 0.225.1, whose linux-x64 program is
 * 0.225.2). It has no schema flag: the model reports through ralph's report tool (`ralph report-tool`), registered for
 * this round only. The argv: `exec`; `-o json` (one result object on stdout); `--auto medium` (file edits and
 * reversible commands; the report tool is read-only by its annotations, so it needs no more; `auto` changes it;
 * read-only, for an evaluator (`readOnly`), passes no `--auto` at all: droid exec's default autonomy, read-only);
 * `--cwd <workspace>`; `--append-system-prompt`, naming the report tool; the prompt on stdin. The model is the user's default (`model` in their settings, e.g.
 * `custom:<name>-0` for a customModels entry); `extraArgs: ['-m', '<id>']` picks another.
 */
export function droidProvider(options: DroidProviderOptions = {}): SubagentProvider {
  const env = { ...(options.baseEnv ?? process.env), ...options.env };
  const userFactoryDir = join(env.FACTORY_HOME_OVERRIDE || env.HOME || homedir(), '.factory');
  const auto = presetMode(
    'droid',
    'auto',
    options.auto,
    { editing: 'medium', readOnly: undefined },
    options.readOnly,
  );
  return commandProvider({
    name: 'droid',
    sandboxNeeds: droidSandboxNeeds(userFactoryDir),
    command: [options.path ?? 'droid'],
    ...passThrough(options),
    roundEnv: ({ request, reportFile }) => ({
      FACTORY_HOME_OVERRIDE: roundHome(userFactoryDir, request, reportFile),
    }),
    args: ({ request }) => [
      'exec',
      '-o',
      'json',
      ...(auto === undefined ? [] : ['--auto', auto]),
      '--cwd',
      request.cwd,
      '--append-system-prompt',
      request.role === 'evaluator' ? VERDICT_TOOL_HINT : REPORT_TOOL_HINT,
      ...(options.extraArgs ?? []),
    ],
    readReport: reportToolReader(options.maxOutputBytes),
    readUsage: readDroidUsage,
  });
}
