import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RalphReport } from '../../../src/index.js';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { onCleanup } from '../support/cleanups.js';
import { type CodexHome, codexHome, codexPath } from '../support/codex-env.js';
import {
  type ResponsesRequestBody,
  type ResponsesServer,
  type Script,
  startResponsesServer,
} from '../support/responses-server.js';

export { onCleanup };

/** The MCP server that leaves a marker file when started (see fixtures/marker-mcp.mjs). */
export const markerMcp = fileURLToPath(new URL('./fixtures/marker-mcp.mjs', import.meta.url));

/** One test's world: the scripted model, a fresh CODEX_HOME wired to it, and a workspace. */
export interface CodexWorld {
  server: ResponsesServer;
  home: CodexHome;
  workspace: string;
  /** `ralph run <objective> --agent codex --codex-path <real codex> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/**
 * Starts the scripted model, a workspace, and a CODEX_HOME for them (`userToml`: the user's own config, which may
 * name the workspace); everything is removed after the test.
 */
export async function codexWorld(
  script: Script,
  userToml: (workspace: string) => string = () => '',
): Promise<CodexWorld> {
  const server = await startResponsesServer(script);
  onCleanup(() => server.close());
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-codex-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const home = await codexHome({ baseUrl: server.baseUrl, extraToml: userToml(workspace) });
  onCleanup(() => home.cleanup());
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) =>
      spawnRalph(
        ['run', objective, '--agent', 'codex', '--codex-path', codexPath, '--cwd', workspace, ...extra],
        {
          env: home.env,
        },
      ),
  };
}

/** A report as the model writes it: the final message, JSON text of the report schema. */
export const reportText = (report: RalphReport): string => JSON.stringify(report);

/**
 * The names of the tools a request offers the model: plain function tools by name, and the tools inside a
 * `namespace` tool (codex puts each MCP server's tools in one) as `<namespace>.<tool>`.
 */
export function offeredTools(body: ResponsesRequestBody): string[] {
  return (body.tools ?? []).flatMap((tool) => {
    if (tool.type === 'namespace' && Array.isArray(tool.tools))
      return (tool.tools as { name: string }[]).map((inner) => `${tool.name}.${inner.name}`);
    return [tool.name ?? tool.type];
  });
}

/** The `function_call_output` items of a request's input: what the host handed back to the model. */
export function toolOutputs(body: ResponsesRequestBody): { call_id?: string; output?: unknown }[] {
  return (body.input ?? []).filter((item) => item.type === 'function_call_output');
}

/** A tool output as text: codex sends a string, or a list of `input_text` parts. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output))
    return output
      .map((part) => (typeof part?.text === 'string' ? part.text : JSON.stringify(part)))
      .join('\n');
  return JSON.stringify(output);
}
