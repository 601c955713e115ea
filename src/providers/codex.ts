import type { SubagentProvider } from '../contract/types.js';
import { type CommandPresetOptions, commandProvider, passThrough } from './command.js';

/** Options of the Codex CLI preset. */
export interface CodexProviderOptions extends CommandPresetOptions {
  /** Codex's sandbox for the child; default 'workspace-write'. */
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

/**
 * The Codex CLI as a fresh child per round. The argv, and why each flag is there:
 * - `exec`: the non-interactive mode; it never asks for approval and exits when the turn ends.
 * - `--output-schema <RALPH_SCHEMA_FILE>`: the report schema (draft-07, every field required, no extras, as
 *   OpenAI's strict structured output needs); the final message is JSON of that shape.
 * - `-o <RALPH_REPORT_FILE>` (`--output-last-message`): codex writes that final message to the report file, where
 *   the command protocol reads the report (stdout, which also gets it, is the fallback).
 * - `-C <cwd>`: the calling agent's folder is the workspace root, whatever codex's own cwd resolution does.
 * - `--skip-git-repo-check`: the workspace need not be a git repository.
 * - `--ephemeral`: no session rollout files are persisted, so nothing can be resumed: each round is fresh.
 * - `--sandbox workspace-write`: the child may edit the workspace (the default, read-only, could not);
 *   `--full-auto` is the deprecated spelling of the same.
 * - `-c mcp_servers.ralph.enabled=false` (+ a `command`, see above): ralph's own MCP server, if the user
 *   registered it with codex, is off for the child, so it cannot start a loop inside the loop.
 * - `-`: the prompt is read from stdin (without it, codex would take piped input as context and wait for a prompt).
 * RALPH_DEPTH guards recursion as well, should the child run `ralph` from a shell.
 */
export function codexProvider(options: CodexProviderOptions = {}): SubagentProvider {
  const ralphMcpServers = options.ralphMcpServers ?? ['ralph'];
  for (const name of ralphMcpServers) {
    // A dotted -c path cannot address a name with dots or quotes in it.
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new RangeError(`cannot disable the codex MCP server "${name}"`);
  }
  return commandProvider({
    name: 'codex',
    command: [options.path ?? 'codex'],
    ...passThrough(options),
    args: ({ request, schemaFile, reportFile }) => [
      'exec',
      '--output-schema',
      schemaFile,
      '-o',
      reportFile,
      '-C',
      request.cwd,
      '--skip-git-repo-check',
      '--ephemeral',
      '--sandbox',
      options.sandbox ?? 'workspace-write',
      ...ralphMcpServers.flatMap(disableMcpServer),
      ...(options.extraArgs ?? []),
      '-',
    ],
  });
}
