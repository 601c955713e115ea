import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../fixtures/cli-agents/harness.js';

const usageAgent = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/agents/usage-file.mjs', import.meta.url)),
]);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('ralph mcp says what each round used and the call in all, and holds --max-cost', () => {
  it('progress messages carry each round and the total so far; the result carries the total in _meta, beside an unchanged envelope', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-mcp-usage-'));
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent-command', usageAgent, '--agent-reports-cost', '--max-cost', '0.5'],
      cwd: workspace,
      env: { ...(process.env as Record<string, string>), FIXTURE_COMPLETE_AT: '99' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ralph-mcp-usage-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());

    const progress: Progress[] = [];
    const result = (await client.callTool(
      { name: 'ralph', arguments: { objective: 'Keep going', maxRounds: 5 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      result: {
        status: 'budget-limited',
        rounds: 2,
        limit: { kind: 'cost', maxCostUsd: 0.5, spentUsd: 0.5 },
      },
    });
    expect(Object.keys(result.structuredContent ?? {})).toEqual(['text', 'runId', 'agentsStarted', 'result']);
    expect(result._meta).toEqual({
      'ralph-machine/usage': { costUsd: 0.5, inputTokens: 2000, outputTokens: 400, turns: 6 },
    });
    expect(progress.map((p) => p.message)).toEqual([
      'Round 1/5 reported continue: round 1 done [$0.25 · 1,000 in / 200 out tokens · 3 turns; run total $0.25 · 1,000 in / 200 out tokens · 3 turns]',
      'Round 2/5 reported continue: round 2 done [$0.25 · 1,000 in / 200 out tokens · 3 turns; run total $0.50 · 2,000 in / 400 out tokens · 6 turns]',
    ]);
  });
});
