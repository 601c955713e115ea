import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { callJsonSchema } from '../../src/index.js';
import { CLI } from '../fixtures/cli-agents/harness.js';

const idleAgent = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/cli-agents/guard-agent.mjs', import.meta.url)),
  'idle',
]);
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

// The guard rails are the server's settings: a client sees the same tool and sends the same arguments, and the
// result and the progress say which guard rail ended the call.
describe('ralph mcp with guard rails as server options', () => {
  it('lists the same tool, and ends an idle call budget-limited naming the idle limit', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-mcp-guard-'));
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent-command', idleAgent, '--max-idle-rounds', '2', '--max-time', '1h'],
      cwd: workspace,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ralph-mcp-guard-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toEqual(callJsonSchema);

    const progress: Progress[] = [];
    const result = (await client.callTool(
      { name: 'ralph', arguments: { objective: 'Wait for something to happen', maxRounds: 5 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      result: { status: 'budget-limited', rounds: 2, limit: { kind: 'idle', maxIdleRounds: 2 } },
    });
    const [first] = result.content;
    expect(first?.type === 'text' ? first.text.split('\n')[0] : '').toBe(
      'Ralph reached its 2 idle rounds limit; the worker reported work remaining, but the workspace did not change in the last 2 rounds.',
    );
    expect(progress.map((p) => p.message)).toEqual([
      'Round 1/5 reported continue: round 1 changed nothing',
      'Round 1/5 left the workspace unchanged (1 of 2 idle rounds allowed in a row)',
      'Round 2/5 reported continue: round 2 changed nothing',
      'Round 2/5 left the workspace unchanged (2 of 2 idle rounds allowed in a row)',
    ]);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });
});
