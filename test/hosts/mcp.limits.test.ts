import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { maxConcurrentRunsInvalid } from '../../src/hosts/cli/mcp-command.js';
import { MAX_MESSAGE_BYTES } from '../../src/hosts/mcp/bounded-lines.js';
import { tooManyRuns } from '../../src/hosts/mcp/server.js';
import { MAX_OBJECTIVE_CHARS, objectiveTooLong } from '../../src/index.js';
import {
  CLI,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  type Workspace,
  waitUntil,
  waitUntilGone,
} from '../fixtures/cli-agents/harness.js';

// What one MCP client can make a `ralph mcp` server do: how many runs at once, how long an objective, how large a
// message. Each limit answers with a clear refusal, starts no agent, and leaves the server serving.

const sessions: { client: Client; ws: Workspace }[] = [];

afterEach(async () => {
  for (const { client, ws } of sessions.splice(0)) {
    await client.close();
    await ws.cleanup();
  }
});

/** Spawns `ralph mcp` (with `args`) in a fresh workspace holding `plan`, and connects the SDK's client to it. */
async function connect(plan: PlanStep[], args: string[] = []) {
  const ws = await makeWorkspace(plan);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', PLAN_AGENT_COMMAND, ...args],
    cwd: ws.dir,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-limits-test', version: '1.0.0' });
  await client.connect(transport);
  sessions.push({ client, ws });
  return { client, ws, transport };
}

const call = (client: Client, objective: string) =>
  client.callTool({ name: 'ralph', arguments: { objective } }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult): string => {
  const [item] = result.content;
  return item?.type === 'text' ? item.text : '';
};

describe('ralph mcp runs one call at a time unless told otherwise', () => {
  it('refuses a call while another runs, starting no agent, and serves the next once it settled', async () => {
    const { client, ws } = await connect(['hang']);
    const controller = new AbortController();
    const first = client.callTool({ name: 'ralph', arguments: { objective: 'Hang' } }, undefined, {
      signal: controller.signal,
    });
    first.catch(() => {});
    const pid = await waitUntil(() => ws.pidOf(1), "the first call's agent to start");

    const second = await call(client, 'Another loop in the same folder');
    expect(second.isError).toBe(true);
    expect(textOf(second)).toBe(tooManyRuns(1));
    // A second agent would have written its own pid over the first's.
    expect(ws.pidOf(1)).toBe(pid);

    controller.abort();
    await waitUntilGone(pid);
    await writeFile(join(ws.dir, 'ralph-plan.json'), JSON.stringify(['complete']));
    // The server frees the slot once the cancelled run has settled, a moment after its agent is gone.
    let next: CallToolResult | undefined;
    while (next === undefined || textOf(next) === tooManyRuns(1)) next = await call(client, 'Finish');
    expect(next.structuredContent).toMatchObject({ result: { status: 'complete', rounds: 1 } });
  });

  it('refuses a --max-concurrent-runs that is not a positive whole number (exit 2), serving nothing', async () => {
    for (const bad of ['0', '-1', '1.5', 'many']) {
      const out = await ralph(['mcp', '--agent-command', PLAN_AGENT_COMMAND, '--max-concurrent-runs', bad]);
      expect(out.code).toBe(2);
      expect(out.stderr).toBe(`${maxConcurrentRunsInvalid(bad)}\n`);
      expect(out.stdout).toBe('');
    }
  });
});

describe('ralph mcp bounds what one call can carry', () => {
  it(`refuses an objective over ${MAX_OBJECTIVE_CHARS} characters with a clear error, starting no agent`, async () => {
    const { client, ws } = await connect(['complete']);
    const objective = 'x'.repeat(MAX_OBJECTIVE_CHARS + 1);
    const result = await call(client, objective);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(objectiveTooLong(MAX_OBJECTIVE_CHARS + 1));
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('answers a message too large to read (30 MB) with an error for its request, and keeps serving', async () => {
    const { client, ws, transport } = await connect(['complete']);
    const huge = call(client, 'y'.repeat(30 * 1024 * 1024));
    await expect(huge).rejects.toThrow(/skipped a message of \d+ bytes/);
    expect(ws.noAgentStarted()).toBe(true);
    expect(transport.pid).not.toBeNull();

    const next = await call(client, 'Finish');
    expect(next.structuredContent).toMatchObject({ result: { status: 'complete', rounds: 1 } });
    expect(MAX_MESSAGE_BYTES).toBeLessThan(30 * 1024 * 1024);
  });
});
