import type { SubagentProvider } from '../contract/types.js';
import { type RalphUsage, usageOf } from '../contract/usage.js';
import {
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandSandboxNeeds,
  commandProvider,
  passThrough,
  presetMode,
} from './command.js';
import { lastJsonObject } from './last-json-object.js';
import { claudeLimitOf, type UsageLimit } from './usage-limit.js';

/** Options of the Claude Code preset. */
export interface ClaudeProviderOptions extends CommandPresetOptions {
  /**
   * Claude Code's permission mode for the child; default 'acceptEdits' ('dontAsk' when `readOnly`, which takes no
   * other). 'bypassPermissions' lets it run any command unasked: only for sandboxed machines (a container, a
   * throwaway VM).
   */
  permissionMode?: string;
  /**
   * Restricts which settings files the child loads (`--setting-sources`, e.g. 'project,local'); default: not passed,
   * so all of them load.
   */
  settingSources?: string;
}

/** Claude Code's tools that edit files, denied to a read-only child on top of dontAsk mode. */
const EDIT_TOOLS = 'Edit,Write,NotebookEdit';

/** The permission flags of a round: the editing mode, or dontAsk with the edit tools denied when read-only. */
function permissionArgs(options: ClaudeProviderOptions): string[] {
  const modes = { editing: 'acceptEdits', readOnly: 'dontAsk' };
  const mode = presetMode('claude', 'permissionMode', options.permissionMode, modes, options.readOnly);
  return ['--permission-mode', mode, ...(options.readOnly ? ['--disallowedTools', EDIT_TOOLS] : [])];
}

/** An MCP config with no servers: with --strict-mcp-config, the child sees no MCP server at all, ralph included. */
const NO_MCP_SERVERS = '{"mcpServers":{}}';

/** The object in `text` when all of it is one JSON object, else undefined. */
function wholeJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claude Code's result object (and Qwen Code's, whose stream ends with one of the same shape). It prints exactly one JSON result, so the whole of stdout is tried first, then its last
 * line (something may have printed before it), and only then the scan for the last JSON object in free text.
 */
export function claudeResultObject(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  return (
    wholeJsonObject(trimmed) ??
    wholeJsonObject(trimmed.slice(trimmed.lastIndexOf('\n') + 1)) ??
    lastJsonObject(stdout)
  );
}

/**
 * A reader of the report in a Claude-Code-style result object (Claude Code's, and Qwen Code's, whose JSON output
 * copies it): the report is its `field`. A result marked `is_error`, or with a subtype other than 'success'
 * (error_max_turns, error_during_execution, error_max_structured_output_retries, …), is a child failure that
 * names `agent`; a success without the field is a missing report.
 */
export function resultReportReader(agent: string, field: string) {
  return async ({ stdout }: CommandOutputs): Promise<unknown> => {
    const result = claudeResultObject(stdout);
    if (result === undefined) return undefined;
    const subtype = typeof result.subtype === 'string' ? result.subtype : undefined;
    if (result.is_error === true || (subtype !== undefined && subtype !== 'success')) {
      const errors = Array.isArray(result.errors) ? result.errors.map(String).join('; ') : '';
      const said = errors || (typeof result.result === 'string' ? result.result : '');
      throw new Error(`${agent} reported ${subtype ?? 'an error'}${said ? `: ${said}` : ''}`);
    }
    return result[field] ?? undefined;
  };
}

/** The report inside Claude Code's `--output-format json` result: its `structured_output` (see resultReportReader). */
export const readClaudeResult: (outputs: CommandOutputs) => Promise<unknown> = resultReportReader(
  'claude',
  'structured_output',
);

/**
 * What Claude Code's `--output-format json` result says the round used: `total_cost_usd`, the `usage` tokens
 * (`input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`), `num_turns` and
 * `duration_ms`; null when there is no result, or it says none of them. Qwen Code's result has the same fields,
 * its cost aside.
 */
export async function readClaudeUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  const result = claudeResultObject(stdout);
  if (result === undefined) return null;
  const tokens =
    typeof result.usage === 'object' && result.usage !== null
      ? (result.usage as Record<string, unknown>)
      : {};
  return usageOf({
    costUsd: result.total_cost_usd,
    inputTokens: tokens.input_tokens,
    outputTokens: tokens.output_tokens,
    cacheReadTokens: tokens.cache_read_input_tokens,
    cacheWriteTokens: tokens.cache_creation_input_tokens,
    turns: result.num_turns,
    durationMs: result.duration_ms,
  });
}

/**
 * Whether Claude Code's result says the round ended on a usage or rate limit (an error result whose text is one of
 * its limit messages), and when it resets.
 */
export function claudeUsageLimit({ stdout }: CommandOutputs): UsageLimit | null {
  const result = claudeResultObject(stdout);
  if (result === undefined) return null;
  const subtype = typeof result.subtype === 'string' ? result.subtype : undefined;
  if (result.is_error !== true && (subtype === undefined || subtype === 'success')) return null;
  const errors = Array.isArray(result.errors) ? result.errors.map(String) : [];
  const said = [...errors, typeof result.result === 'string' ? result.result : ''].filter(Boolean).join('; ');
  return claudeLimitOf(said);
}

/**
 * What ralph's sandbox binds in for it: Claude Code's config and session state (`~/.claude`, `~/.claude.json`, or
 * CLAUDE_CONFIG_DIR), its Anthropic settings, the user's opt-outs (DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING,
 * DISABLE_AUTOUPDATER and the rest of its DISABLE_* switches, DO_NOT_TRACK: dropped, a sandboxed Claude Code would
 * send the telemetry the user turned off), and its limits, Vertex AI's regions.
 */
const CLAUDE_SANDBOX_NEEDS: CommandSandboxNeeds = {
  home: ['.claude', '.claude.json'],
  folderVars: ['CLAUDE_CONFIG_DIR'],
  env: [
    'ANTHROPIC_*',
    'CLAUDE_*',
    'DISABLE_*',
    'DO_NOT_TRACK',
    'MAX_THINKING_TOKENS',
    'BASH_DEFAULT_TIMEOUT_MS',
    'BASH_MAX_TIMEOUT_MS',
    'BASH_MAX_OUTPUT_LENGTH',
    'CLOUD_ML_REGION',
    'VERTEX_REGION_*',
  ],
};

/**
 * Claude Code as a fresh child per round. The argv, and why each flag is there:
 * - `-p`: print mode, one non-interactive turn; with no prompt argument the prompt is read from stdin.
 * - `--output-format json`: one JSON result on stdout, carrying `subtype`, `is_error` and `structured_output`.
 * - `--json-schema <schema>`: the report schema (draft-07); Claude Code validates the final answer against it and
 *   returns it as `structured_output`.
 * - `--no-session-persistence`: the session is not saved, so no later `--resume`/`--continue` can pick it up; every
 *   round is a fresh child with nothing to inherit.
 * - `--permission-mode acceptEdits`: edits in the workspace are applied without asking (nobody is there to answer);
 *   shell commands need an allow rule in the user's or workspace's settings (e.g. `Bash(npm test:*)`), so an
 *   unattended loop runs no command nobody allowed. `permissionMode` changes it.
 * - read-only (`readOnly`, for an evaluator): `--permission-mode dontAsk --disallowedTools Edit,Write,NotebookEdit`
 *   instead. dontAsk runs reads and what the user's allow rules pre-approve, and refuses everything else back to the
 *   model; the edit tools are taken away outright (a deny rule beats every allow rule). Not `plan`: in a `-p` run
 *   Claude Code 2.1.332 hands plan mode's approvals to auto mode's server-side check, and where that is out of reach
 *   (a gateway in ANTHROPIC_BASE_URL) the first refused action ends the child with exit code 1.
 * - `--strict-mcp-config --mcp-config {"mcpServers":{}}`: MCP servers only from that (empty) config, so the child
 *   cannot reach ralph's own MCP server, or any other, and start a loop inside the loop.
 * - no `--setting-sources` by default: dropping the user source would also drop the user's `apiKeyHelper` and `env`
 *   (how many users authenticate or reach a gateway) and their permission rules, and MCP is already closed off
 *   above. `settingSources` passes it for hosts that want the child isolated from user-wide settings too.
 * RALPH_DEPTH guards recursion as well, should the child run `ralph` from a shell. Each round's usage is read off the
 * same JSON result (`readClaudeUsage`), its cost included, so the provider declares `reportsCost`.
 */
export function claudeProvider(options: ClaudeProviderOptions = {}): SubagentProvider {
  const permissions = permissionArgs(options);
  return commandProvider({
    name: 'claude',
    sandboxNeeds: CLAUDE_SANDBOX_NEEDS,
    command: [options.path ?? 'claude'],
    ...passThrough(options),
    args: ({ request }) => [
      '-p',
      '--output-format',
      'json',
      '--json-schema',
      JSON.stringify(request.outputSchema),
      '--no-session-persistence',
      ...permissions,
      '--strict-mcp-config',
      '--mcp-config',
      NO_MCP_SERVERS,
      ...(options.settingSources === undefined ? [] : ['--setting-sources', options.settingSources]),
      ...(options.extraArgs ?? []),
    ],
    readReport: readClaudeResult,
    readUsage: readClaudeUsage,
    usageLimitOf: claudeUsageLimit,
    reportsCost: true,
  });
}
