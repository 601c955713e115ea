import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChildRequest, SubagentProvider } from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf } from '../contract/usage.js';
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

/** Options of the Gemini CLI preset. */
export interface GeminiProviderOptions extends CommandPresetOptions {
  /**
   * Gemini CLI's approval mode for the child; default 'auto_edit' ('plan' when `readOnly`, which takes no other).
   * 'yolo' runs any command unasked.
   */
  approvalMode?: string;
}

/**
 * The files of the user's ~/.gemini that carry their authentication, linked into each round's home so that it
 * keeps working (a refreshed OAuth token is written back to the user's own file).
 */
const AUTH_FILES = ['.env', 'oauth_creds.json', 'google_accounts.json', 'gemini-credentials.json'];

/**
 * Builds one round's Gemini CLI home: `.gemini/settings.json` is the user's own settings (auth type, model, …) with
 * ralph's report tool as the only MCP server, and the user's auth files are linked beside it. Returns the home.
 */
function roundHome(userGeminiDir: string, request: ChildRequest, reportFile: string): string {
  const home = freshAgentHome(reportFile, 'gemini-home');
  const dir = join(home, '.gemini');
  mkdirSync(dir, { mode: 0o700 });
  const settings = readJsonObject(join(userGeminiDir, 'settings.json'));
  settings.mcpServers = { [REPORT_TOOL_SERVER]: { ...reportToolServer(request, reportFile), trust: true } };
  writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  for (const name of AUTH_FILES) {
    const own = join(userGeminiDir, name);
    if (existsSync(own)) symlinkSync(own, join(dir, name));
  }
  return home;
}

/**
 * What a Gemini CLI round used: the tokens of every model in its `-o json` result's `stats.models` (input,
 * candidates as output, cached as cache reads) and their requests as turns; Gemini CLI reports no cost.
 */
export async function readGeminiUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  const stats = claudeResultObject(stdout)?.stats as { models?: Record<string, unknown> } | undefined;
  let total: RalphUsage | null = null;
  for (const model of Object.values(stats?.models ?? {})) {
    const { api, tokens } = (model ?? {}) as {
      api?: { totalRequests?: unknown };
      tokens?: { input?: unknown; candidates?: unknown; cached?: unknown };
    };
    total = addUsage(
      total,
      usageOf({
        inputTokens: tokens?.input,
        outputTokens: tokens?.candidates,
        cacheReadTokens: tokens?.cached,
        turns: api?.totalRequests,
      }),
    );
  }
  return total;
}

/**
 * What ralph's sandbox binds in for it: the user's Gemini CLI folder (`~/.gemini`, or `.gemini` in their own
 * GEMINI_CLI_HOME), which holds the auth files each round's home links to (the round's home is in the round's folder),
 * and its Google settings: the key, a gateway's base URL (GOOGLE_GEMINI_BASE_URL, GOOGLE_VERTEX_BASE_URL: without it
 * gemini would send the key to Google's own endpoint), Vertex AI's project and location.
 */
function geminiSandboxNeeds(userGeminiDir: string): CommandSandboxNeeds {
  return {
    home: [userGeminiDir],
    env: [
      'GEMINI_*',
      'GOOGLE_API_KEY',
      'GOOGLE_GENAI_*',
      'GOOGLE_GEMINI_BASE_URL',
      'GOOGLE_VERTEX_BASE_URL',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_LOCATION',
    ],
  };
}

/**
 * Gemini CLI as a fresh child per round (verified with gemini-cli 0.61.0). It has no schema flag: the model reports
 * through ralph's report tool (`ralph report-tool`, an MCP server registered for this round only), which checks the
 * report with the run's own rules, answers the exact problem so the model can correct it within the round, and
 * writes the report file. The argv, and why each flag is there:
 * - `-o json`: one JSON result on stdout, whose `stats` say what the round used.
 * - `--approval-mode auto_edit`: edits and the report tool need nobody to approve them; `approvalMode` changes it.
 *   Read-only (`readOnly`, for an evaluator): `--approval-mode plan`, Gemini CLI's read-only mode, instead.
 * - `--skip-trust`: the workspace need not be a trusted folder (there is nobody to ask).
 * - `--allowed-mcp-server-names ralph_report`: the report tool is the child's only MCP server.
 * - the prompt on stdin (piped input runs one non-interactive turn).
 * GEMINI_CLI_HOME is a fresh home in the round's folder: its settings are the user's own (auth type, model) with the
 * report tool as MCP server, and the user's auth files are linked into it; so the round writes nothing into the
 * user's ~/.gemini, and its chat and logs go with the round folder. The report is the report file alone (stdout is
 * gemini's result, never a report); a round whose model never reports is a missing report.
 */
export function geminiProvider(options: GeminiProviderOptions = {}): SubagentProvider {
  const env = { ...(options.baseEnv ?? process.env), ...options.env };
  const userGeminiDir = join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
  const approvalMode = presetMode(
    'gemini',
    'approvalMode',
    options.approvalMode,
    { editing: 'auto_edit', readOnly: 'plan' },
    options.readOnly,
  );
  return commandProvider({
    name: 'gemini',
    sandboxNeeds: geminiSandboxNeeds(userGeminiDir),
    command: [options.path ?? 'gemini'],
    ...passThrough(options),
    roundEnv: ({ request, reportFile }) => ({
      GEMINI_CLI_HOME: roundHome(userGeminiDir, request, reportFile),
    }),
    args: () => [
      '-o',
      'json',
      '--approval-mode',
      approvalMode,
      '--skip-trust',
      '--allowed-mcp-server-names',
      REPORT_TOOL_SERVER,
      ...(options.extraArgs ?? []),
    ],
    readReport: reportToolReader(options.maxOutputBytes),
    readUsage: readGeminiUsage,
  });
}
