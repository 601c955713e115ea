import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../fixtures/cli-agents/harness.js';

const ROUNDS = 5;
const CALLS = 30;

/**
 * An agent that costs almost nothing to start (a POSIX shell, no Node), so that many rounds fit in one test: it
 * reads the prompt, then reports continue until round ROUNDS, where it reports complete.
 */
const FAST_AGENT = quote([
  'sh',
  '-c',
  [
    'cat >/dev/null',
    `if [ "$RALPH_ROUND" -ge ${ROUNDS} ]; then`,
    `  printf '%s' '{"status":"complete","summary":"done","evidence":["all rounds ran"],"nextSteps":[],"blocker":null}' > "$RALPH_REPORT_FILE"`,
    'else',
    `  printf '%s' '{"status":"continue","summary":"progress","evidence":[],"nextSteps":["go on"],"blocker":null}' > "$RALPH_REPORT_FILE"`,
    'fi',
  ].join('\n'),
]);

/** A thread that keeps one core busy, so the client reads the server's pipe late and messages pile up in it. */
const BUSY_LOOP = 'for (;;) {}';

let workspace = '';
let busy: Worker | undefined;
let client: Client | undefined;
const clientErrors: string[] = [];

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'ralph-mcp-progress-'));
  busy = new Worker(BUSY_LOOP, { eval: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', FAST_AGENT],
    cwd: workspace,
    stderr: 'pipe',
  });
  client = new Client({ name: 'ralph-mcp-progress-test', version: '1.0.0' });
  client.onerror = (error) => clientErrors.push(error.message);
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await busy?.terminate();
  await rm(workspace, { recursive: true, force: true });
});

describe('progress over MCP while the CPU is busy', () => {
  it(`reaches the client before the result, every round of every call (${CALLS} calls of ${ROUNDS} rounds)`, async () => {
    const seen: string[] = [];
    for (let call = 1; call <= CALLS; call += 1) {
      const progress: number[] = [];
      const result = (await client!.callTool(
        { name: 'ralph', arguments: { objective: `Call ${call}`, maxRounds: ROUNDS } },
        undefined,
        { onprogress: (update) => progress.push(update.progress) },
      )) as CallToolResult;
      expect(result.structuredContent, `call ${call}`).toMatchObject({
        result: { status: 'complete', rounds: ROUNDS },
      });
      seen.push(`call ${call}: ${progress.join(',')}`);
    }

    const everyRound = Array.from({ length: ROUNDS }, (_, index) => index + 1).join(',');
    expect(seen).toEqual(Array.from({ length: CALLS }, (_, index) => `call ${index + 1}: ${everyRound}`));
    // The SDK client reports a progress notification it dropped (its request already answered) as an error.
    expect(clientErrors).toEqual([]);
  }, 60_000);
});
