import type { SubagentProvider } from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf } from '../contract/usage.js';
import { codexTempDirEnv } from './codex-temp-dir.js';
import {
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandSandboxNeeds,
  commandProvider,
  DEFAULT_MAX_OUTPUT_BYTES,
  defaultReportReader,
  passThrough,
  presetMode,
} from './command.js';
import { jsonLines } from './json-lines.js';
import { codexLimitOf, type UsageLimit } from './usage-limit.js';

/** Options of the Codex CLI preset. */
export interface CodexProviderOptions extends CommandPresetOptions {
  /** Codex's sandbox for the child; default 'workspace-write' ('read-only' when `readOnly`, which takes no other). */
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Names under which ralph's own MCP server may be registered with codex; each is disabled. Default ['ralph']. */
  ralphMcpServers?: string[];
}

/**
 * `-c` overrides that switch an MCP server off for one invocation. `enabled=false` alone is the documented way
 * (`-c mcp_servers={}` merges and clears nothing, openai/codex#16045), but codex refuses a server entry with no
 * transport ("invalid transport in mcp_servers.<name>", openai/codex#29396), so where the user has no such server
 * the override would stop codex from starting. Giving it a `command` too makes the entry whole either way: a
 * disabled stdio server, never started.
 */
function disableMcpServer(name: string): string[] {
  return ['-c', `mcp_servers.${name}.enabled=false`, '-c', `mcp_servers.${name}.command="ralph"`];
}

/** The JSON events of `codex exec --json`, one a line. */
const codexEvents = jsonLines;

/**
 * What a codex round used: the `usage` of every `turn.completed` event (`input_tokens`, `cached_input_tokens`,
 * `cache_write_input_tokens`, `output_tokens`), summed, and the turns counted; codex reports no cost.
 */
export async function readCodexUsage({ stdout }: CommandOutputs): Promise<RalphUsage | null> {
  let total: RalphUsage | null = null;
  for (const event of codexEvents(stdout)) {
    if (event.type !== 'turn.completed') continue;
    const usage = (typeof event.usage === 'object' && event.usage !== null ? event.usage : {}) as Record<
      string,
      unknown
    >;
    const turn = usageOf({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cached_input_tokens,
      cacheWriteTokens: usage.cache_write_input_tokens,
    });
    total = addUsage(total, { ...turn, turns: 1 });
  }
  return total;
}

/**
 * What a failed codex round said: its stderr, then the errors of its JSON event stream (`error` events, and a
 * `turn.failed` whose message no `error` event gave) as `ERROR: <message>` lines, as codex prints them without
 * `--json`.
 */
export function codexFailureStderr({ stdout, stderr }: CommandOutputs): string {
  const errors: string[] = [];
  for (const event of codexEvents(stdout)) {
    const failed = event.error as { message?: unknown } | undefined;
    const message =
      event.type === 'error' ? event.message : event.type === 'turn.failed' ? failed?.message : undefined;
    if (typeof message === 'string' && !errors.includes(message)) errors.push(message);
  }
  if (errors.length === 0) return stderr;
  const lines = errors.map((message) => `ERROR: ${message}`).join('\n');
  return stderr.trim() === '' ? lines : `${stderr.trimEnd()}\n${lines}`;
}

/** Whether a codex round ended on a usage or rate limit (an error on its event stream says so), and when it resets. */
export function codexUsageLimit(outputs: CommandOutputs): UsageLimit | null {
  for (const line of codexFailureStderr({ ...outputs, stderr: '' }).split('\n')) {
    const limit = codexLimitOf(line.replace(/^ERROR: /, ''));
    if (limit !== null) return limit;
  }
  return null;
}

/** The text of the last `agent_message` item on codex's JSON event stream: its final message. */
function lastAgentMessage(stdout: string): string | undefined {
  let text: string | undefined;
  for (const event of codexEvents(stdout)) {
    const item = event.item as { type?: unknown; text?: unknown } | undefined;
    if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string')
      text = item.text;
  }
  return text;
}

/**
 * The report of a codex round: the report file `-o` wrote, else its final message as the JSON event stream
 * carries it (with `--json` stdout holds events, so the protocol's fallback reads the final message, not the
 * last event).
 */
export function codexReportReader(maxBytes = DEFAULT_MAX_OUTPUT_BYTES) {
  const read = defaultReportReader(maxBytes);
  return (outputs: CommandOutputs): Promise<unknown> =>
    read({ ...outputs, stdout: lastAgentMessage(outputs.stdout) ?? '' });
}

/** What ralph's sandbox binds in for it: Codex's home (`~/.codex`, or CODEX_HOME: config, auth, its sandbox helper) and its OpenAI settings. */
const CODEX_SANDBOX_NEEDS: CommandSandboxNeeds = {
  home: ['.codex'],
  folderVars: ['CODEX_HOME'],
  env: ['OPENAI_*', 'CODEX_*'],
};

/**
 * The Codex CLI as a fresh child per round. The argv, and why each flag is there:
 * - `exec`: the non-interactive mode; it never asks for approval and exits when the turn ends.
 * - `--output-schema <RALPH_SCHEMA_FILE>`: the report schema (draft-07, every field required, no extras, as
 *   OpenAI's strict structured output needs); the final message is JSON of that shape.
 * - `-o <RALPH_REPORT_FILE>` (`--output-last-message`): codex writes that final message to the report file, where
 *   the command protocol reads the report (stdout, which also gets it, is the fallback).
 * - `--json`: stdout is codex's JSON event stream, whose `turn.completed` events say what each turn used
 *   (`readCodexUsage`); the report still comes from the `-o` file, or else the stream's final message.
 * - `-C <cwd>`: the calling agent's folder is the workspace root, whatever codex's own cwd resolution does.
 * - `--skip-git-repo-check`: the workspace need not be a git repository.
 * - `--ephemeral`: no session rollout files are persisted, so nothing can be resumed: each round is fresh.
 * - `--sandbox workspace-write`: the child may edit the workspace (the default, read-only, could not);
 *   `--full-auto` is the deprecated spelling of the same.
 * - read-only (`readOnly`, for an evaluator): `--sandbox read-only` instead: the model's shell commands and patches
 *   may read the workspace but write nowhere (the report still reaches the `-o` file: codex itself writes it).
 * - `-c mcp_servers.ralph.enabled=false` (+ a `command`, see above): ralph's own MCP server, if the user
 *   registered it with codex, is off for the child, so it cannot start a loop inside the loop.
 * - `-`: the prompt is read from stdin (without it, codex would take piped input as context and wait for a prompt).
 * RALPH_DEPTH guards recursion as well, should the child run `ralph` from a shell. Where the user's CODEX_HOME lies in
 * the temporary folder, TMPDIR is a fresh folder in the round's folder, so codex's sandbox finds its helper
 * (codex-temp-dir.ts).
 */
export function codexProvider(options: CodexProviderOptions = {}): SubagentProvider {
  const ralphMcpServers = options.ralphMcpServers ?? ['ralph'];
  const sandbox = presetMode(
    'codex',
    'sandbox',
    options.sandbox,
    { editing: 'workspace-write', readOnly: 'read-only' },
    options.readOnly,
  );
  for (const name of ralphMcpServers) {
    // A dotted -c path cannot address a name with dots or quotes in it.
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new RangeError(`cannot disable the codex MCP server "${name}"`);
  }
  return commandProvider({
    name: 'codex',
    sandboxNeeds: CODEX_SANDBOX_NEEDS,
    command: [options.path ?? 'codex'],
    ...passThrough(options),
    roundEnv: ({ reportFile }) =>
      codexTempDirEnv({ ...(options.baseEnv ?? process.env), ...options.env }, reportFile),
    args: ({ request, schemaFile, reportFile }) => [
      'exec',
      '--json',
      '--output-schema',
      schemaFile,
      '-o',
      reportFile,
      '-C',
      request.cwd,
      '--skip-git-repo-check',
      '--ephemeral',
      '--sandbox',
      sandbox,
      ...ralphMcpServers.flatMap(disableMcpServer),
      ...(options.extraArgs ?? []),
      '-',
    ],
    readReport: codexReportReader(options.maxOutputBytes),
    readUsage: readCodexUsage,
    failureStderr: codexFailureStderr,
    usageLimitOf: codexUsageLimit,
  });
}
