import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  callJsonSchema,
  MAX_ROUNDS_INVALID,
  NO_PREVIOUS_HANDOFF,
  OBJECTIVE_EMPTY,
  RALPH_GUIDANCE,
  reportSchema,
  roundChildFailed,
} from '../../src/index.js';
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

interface Session {
  client: Client;
  transport: StdioClientTransport;
  ws: Workspace;
  /** What is left in the server's temp folder. */
  tmpLeftovers(): string[];
}

const sessions: Session[] = [];

afterEach(async () => {
  for (const { client, ws } of sessions.splice(0)) {
    await client.close();
    // Should a test fail, no agent it started outlives it.
    for (const pid of [ws.pidOf(1), ws.grandchildPidOf(1)]) {
      try {
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    await ws.cleanup();
  }
});

/** Spawns `ralph mcp` in a fresh workspace holding `plan`, and connects the SDK's own client to it over stdio. */
async function connect(plan: PlanStep[], graceMs = 2000): Promise<Session> {
  const ws = await makeWorkspace(plan);
  // A temp folder of the server's own, where the provider keeps each round's files.
  const tmp = join(ws.dir, '.tmp');
  await mkdir(tmp);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', PLAN_AGENT_COMMAND, '--grace-ms', String(graceMs)],
    cwd: ws.dir,
    env: { TMPDIR: tmp },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  const session = { client, transport, ws, tmpLeftovers: () => readdirSync(tmp) };
  sessions.push(session);
  return session;
}

const textOf = (result: CallToolResult, index = 0): string => {
  const item = result.content[index];
  return item?.type === 'text' ? item.text : '';
};

describe('ralph mcp lists one tool, ralph', () => {
  it('with the guidance as its description and exactly the tool input schema', async () => {
    const { client } = await connect(['complete']);
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name)).toEqual(['ralph']);
    const [ralph] = tools;
    expect(ralph?.description).toBe(RALPH_GUIDANCE);
    expect(ralph?.inputSchema).toEqual(callJsonSchema);
    expect(ralph?.inputSchema).toEqual({
      type: 'object',
      properties: {
        objective: { type: 'string', description: expect.any(String) },
        maxRounds: { type: 'number', description: expect.any(String) },
      },
      required: ['objective'],
      additionalProperties: false,
    });
    expect(ralph?.outputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text', 'runId', 'agentsStarted', 'result'],
    });
  });
});

describe('ralph mcp refuses bad options before it serves anything', () => {
  it('exits 2 with the message on stderr and nothing on stdout, which belongs to the protocol', async () => {
    const out = await ralph(['mcp']);

    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--agent claude|codex|example or --agent-command');
    expect(out.stdout).toBe('');
  });
});

describe('a ralph call over MCP', () => {
  it('runs every round, sends a progress notification per round, and returns the envelope and the native text', async () => {
    const { client, ws } = await connect(['continue', 'continue', 'complete']);
    // Listing first makes the client check structuredContent against the advertised output schema.
    await client.listTools();
    const progress: Progress[] = [];

    const result = (await client.callTool(
      { name: 'ralph', arguments: { objective: 'Tick every box', maxRounds: 5 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      agentsStarted: 3,
      result: { status: 'complete', rounds: 3 },
    });
    const envelope = result.structuredContent as { result: { report: unknown } };
    expect(reportSchema.parse(envelope.result.report).summary).toBe('round 3 finished the work');
    expect(textOf(result)).toMatch(
      /^Ralph complete: the worker reported the objective complete after 3 rounds\./,
    );
    // Claude Code hands its model the structuredContent, not the text: the native text rides there too.
    expect(result.structuredContent).toMatchObject({ text: textOf(result) });
    expect(progress.map(({ progress, total }) => [progress, total])).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
    ]);
    expect(progress[0]?.message).toBe('Round 1/5 reported continue: round 1 made progress');
    // The server's cwd is the calling agent's workspace: the children worked there.
    expect(ws.promptOf(1)).toContain('Tick every box');
  });

  it.each([
    ['an empty objective', { objective: '' }, OBJECTIVE_EMPTY],
    ['no arguments at all', {}, OBJECTIVE_EMPTY],
    ['an objective that is not a string', { objective: 5 }, OBJECTIVE_EMPTY],
    ['maxRounds 0', { objective: 'x', maxRounds: 0 }, MAX_ROUNDS_INVALID],
    ['maxRounds as a string', { objective: 'x', maxRounds: '3' }, MAX_ROUNDS_INVALID],
  ])('is refused with the seed message as an isError result for %s', async (_, args, message) => {
    const { client, ws } = await connect(['complete']);

    const result = (await client.callTool({ name: 'ralph', arguments: args })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: message }]);
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('comes back as an isError result naming the failed round when a child fails', async () => {
    const { client } = await connect(['fail']);

    const result = (await client.callTool({
      name: 'ralph',
      arguments: { objective: 'Crash' },
    })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`${roundChildFailed(1)}\n${NO_PREVIOUS_HANDOFF}`);
    expect(textOf(result, 1)).toContain('round 1 crashed on purpose');
  });
});

describe('cancelling a ralph call over MCP', () => {
  it('stops the child process when the client cancels, and the server serves the next call', async () => {
    const { client, ws, tmpLeftovers } = await connect(['hang']);
    const controller = new AbortController();

    const call = client.callTool({ name: 'ralph', arguments: { objective: 'Hang' } }, undefined, {
      signal: controller.signal,
    });
    const pid = await waitUntil(() => ws.pidOf(1), "the round's agent to start");
    controller.abort();

    await expect(call).rejects.toThrow();
    await waitUntilGone(pid);
    await waitUntil(() => tmpLeftovers().length === 0, "the cancelled round's files to be removed");

    await writeFile(join(ws.dir, 'ralph-plan.json'), JSON.stringify(['complete']));
    const next = (await client.callTool({
      name: 'ralph',
      arguments: { objective: 'Finish' },
    })) as CallToolResult;
    expect(next.structuredContent).toMatchObject({ result: { status: 'complete', rounds: 1 } });
  });

  it('stops the child and exits when the client disconnects mid-call', async () => {
    const { client, transport, ws } = await connect(['hang']);
    const serverPid = transport.pid;
    if (serverPid === null) throw new Error('the transport reports no server pid');

    const call = client.callTool({ name: 'ralph', arguments: { objective: 'Hang' } });
    call.catch(() => {});
    const pid = await waitUntil(() => ws.pidOf(1), "the round's agent to start");
    await client.close();

    await waitUntilGone(pid);
    await waitUntilGone(serverPid);
  });

  it('kills an agent that ignores SIGTERM when the client disconnects and then signals the server', async () => {
    // The grace is long: only the server's forced stop, on the SIGTERM the SDK's transport sends two seconds
    // after closing stdin, can end this agent before the test does.
    const { client, transport, ws, tmpLeftovers } = await connect(['stubborn'], 600_000);
    const serverPid = transport.pid;
    if (serverPid === null) throw new Error('the transport reports no server pid');

    const call = client.callTool({ name: 'ralph', arguments: { objective: 'Ignore SIGTERM' } });
    call.catch(() => {});
    const pid = await waitUntil(() => ws.pidOf(1), "the round's agent to start");
    const grandchild = ws.grandchildPidOf(1);
    if (grandchild === undefined) throw new Error('the stubborn agent recorded no grandchild');
    await client.close();

    await waitUntilGone(pid);
    await waitUntilGone(grandchild);
    await waitUntilGone(serverPid);
    // Even the forced stop let the provider remove the killed round's files.
    expect(tmpLeftovers()).toEqual([]);
  });
});
