import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, waitUntil } from '../fixtures/cli-agents/harness.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';

// With OTEL_EXPORTER_OTLP_ENDPOINT set, `ralph mcp` sends each call's run as a trace of its own.

const traceAgent = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/cli-agents/trace-agent.mjs', import.meta.url)),
]);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('ralph mcp traces each call', () => {
  it("two calls, two traces: each run's span over its rounds and their agents", async () => {
    const otlp = await startOtlpReceiver();
    cleanups.push(() => otlp.close());
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-mcp-traces-'));
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined && !key.startsWith('OTEL_') && key !== 'TRACEPARENT') env[key] = value;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent-command', traceAgent],
      cwd: workspace,
      env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ralph-mcp-traces-test', version: '1.0.0' });
    await client.connect(transport);
    const runIds: string[] = [];
    for (const objective of ['First call', 'Second call']) {
      const result = (await client.callTool({
        name: 'ralph',
        arguments: { objective, maxRounds: 3 },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      runIds.push((result.structuredContent as { runId: string }).runId);
    }
    // The server sends what it holds when it shuts down, once its client is gone.
    await client.close();
    const runs = await waitUntil(() => {
      const found = otlp.spans().filter((span) => span.name === 'invoke_agent ralph');
      return found.length === 2 && found;
    }, 'both runs to be sent');

    const spans = otlp.spans();
    expect(runs.map((run) => run.attributes['ralph.run.id']).sort()).toEqual([...runIds].sort());
    expect(new Set(runs.map((run) => run.traceId)).size).toBe(2);
    for (const run of runs) {
      expect(run.attributes).toMatchObject({ 'ralph.status': 'complete', 'ralph.rounds': 2 });
      const inTrace = spans.filter((span) => span.traceId === run.traceId);
      for (const round of [1, 2]) {
        const roundSpan = inTrace.find((span) => span.name === `ralph.round ${round}`);
        expect(roundSpan?.parentSpanId).toBe(run.spanId);
        const child = inTrace.find(
          (span) => span.name === 'invoke_agent command' && span.attributes['ralph.round'] === round,
        );
        expect(child?.parentSpanId).toBe(roundSpan?.spanId);
      }
    }
  });
});
