import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChildRequest, SubagentProvider } from '../contract/types.js';
import { type RalphUsage, usageOf } from '../contract/usage.js';
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

/** Options of the Copilot CLI preset. */
export interface CopilotProviderOptions extends CommandPresetOptions {
  /**
   * The tools the child may use unasked, besides the report tool; default ['write'] (file edits, no shell), none when
   * `readOnly` (whose `--deny-tool=write` outranks any allow rule).
   */
  allowTools?: string[];
}

/** The files of the user's ~/.copilot that carry their settings and sign-in, copied into each round's home. */
const USER_FILES = ['settings.json', 'config.json'];

/** The round's MCP config file, in its Copilot home. */
const mcpConfigOf = (reportFile: string): string => join(dirname(reportFile), HOME_FOLDER, 'ralph-mcp.json');

/** The folder of a round's Copilot home, in the round's folder. */
const HOME_FOLDER = 'copilot-home';

/**
 * One round's Copilot home (COPILOT_HOME, in the round's folder): the user's settings and sign-in copied in, so they
 * apply while the session state, logs and session store the CLI writes stay out of the user's ~/.copilot; and the
 * round's MCP config, which adds ralph's report tool. Returns the home.
 */
function roundHome(userHome: string, request: ChildRequest, reportFile: string): string {
  const home = freshAgentHome(reportFile, HOME_FOLDER);
  for (const name of USER_FILES) {
    const own = join(userHome, name);
    if (existsSync(own)) copyFileSync(own, join(home, name));
  }
  const server = { type: 'local', ...reportToolServer(request, reportFile), tools: ['*'] };
  const config = `${JSON.stringify({ mcpServers: { [REPORT_TOOL_SERVER]: server } }, null, 2)}\n`;
  writeFileSync(mcpConfigOf(reportFile), config);
  return home;
}

/**
 * What a Copilot CLI round used: its turns (`assistant.turn_end` events) and the session's duration from its
 * `result` event; Copilot's JSON output gives no token counts and no cost (premium requests are not dollars).
 */
export async function readCopilotUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  let turns = 0;
  let durationMs: unknown;
  for (const event of jsonLines(stdout)) {
    if (event.type === 'assistant.turn_end') turns += 1;
    if (event.type === 'result')
      durationMs = (event.usage as { sessionDurationMs?: unknown } | undefined)?.sessionDurationMs;
  }
  return turns === 0 && durationMs === undefined ? null : usageOf({ turns, durationMs });
}

/** What ralph's sandbox binds in for it: Copilot CLI's config (`~/.copilot`) and the GitHub token it signs in with. */
const COPILOT_SANDBOX_NEEDS: CommandSandboxNeeds = {
  home: ['.copilot'],
  env: ['COPILOT_*', 'GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST'],
};

/**
 * GitHub Copilot CLI as a fresh child per round (verified with @github/copilot 1.0.102). It has no schema flag: the
 * model reports through ralph's report tool (`ralph report-tool`), registered for this round only. The argv:
 * - `--output-format json`: JSON events on stdout, one a line, ending with a `result`.
 * - `--no-ask-user`, `--no-auto-update`: nobody is there to answer, and the program does not change under a run.
 * - `--additional-mcp-config @<file>`: the report tool, for this session only.
 * - `--allow-tool=write --allow-tool=ralph_report`: file edits and the report tool need no approval; anything else
 *   (the shell) is refused, as nobody can approve it. `allowTools` changes the first.
 * - read-only (`readOnly`, for an evaluator): no `--allow-tool=write`, and `--deny-tool=write` instead: every tool
 *   that creates or modifies files is refused (a deny rule outranks every allow rule). Copilot's `--plan` mode is no
 *   use here: it plans and stops, where an evaluator must act (read, and report).
 * - the prompt on stdin.
 * COPILOT_HOME is a fresh home in the round's folder (see roundHome); a user on a custom provider (BYOK:
 * COPILOT_PROVIDER_BASE_URL, COPILOT_MODEL, …) keeps it through the environment. The report is the report file alone.
 */
export function copilotProvider(options: CopilotProviderOptions = {}): SubagentProvider {
  const env = { ...(options.baseEnv ?? process.env), ...options.env };
  const userHome = env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
  return commandProvider({
    name: 'copilot',
    sandboxNeeds: COPILOT_SANDBOX_NEEDS,
    command: [options.path ?? 'copilot'],
    ...passThrough(options),
    roundEnv: ({ request, reportFile }) => ({ COPILOT_HOME: roundHome(userHome, request, reportFile) }),
    args: ({ reportFile }) => [
      '--output-format',
      'json',
      '--no-ask-user',
      '--no-auto-update',
      '--additional-mcp-config',
      `@${mcpConfigOf(reportFile)}`,
      ...(options.allowTools ?? (options.readOnly ? [] : ['write'])).map((tool) => `--allow-tool=${tool}`),
      `--allow-tool=${REPORT_TOOL_SERVER}`,
      ...(options.readOnly ? ['--deny-tool=write'] : []),
      ...(options.extraArgs ?? []),
    ],
    readReport: reportToolReader(options.maxOutputBytes),
    readUsage: readCopilotUsage,
  });
}
