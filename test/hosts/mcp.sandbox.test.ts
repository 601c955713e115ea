import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RalphEnvelope } from '../../src/index.js';
import { CLI, ralph } from '../fixtures/cli-agents/harness.js';
import { privateHomeScene } from '../support/sandbox-scene.js';

const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** `ralph mcp --agent example <extra>` in the scene's workspace, its home the scene's, with the SDK's own client. */
async function connect(scene: ReturnType<typeof privateHomeScene>, ...extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', 'example', ...extra],
    cwd: scene.workspace,
    env: { HOME: scene.home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-sandbox-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** One call of the scene's objective: the envelope it came back with. */
async function callOnce(client: Client, objective: string): Promise<RalphEnvelope> {
  const result = (await client.callTool({
    name: 'ralph',
    arguments: { objective, maxRounds: 3 },
  })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as unknown as RalphEnvelope;
}

describe('ralph mcp --sandbox', () => {
  it('runs a call’s agent in the sandbox: it cannot see the planted key, and the call completes', async () => {
    const scene = privateHomeScene();
    const client = await connect(scene, '--sandbox', '--sandbox-network', 'none');

    const envelope = await callOnce(client, scene.objective);

    expect(envelope.result.status).toBe('complete');
    expect(readFileSync(join(scene.workspace, 'seen.txt'), 'utf8')).toBe('checked\n');
    expect(readFileSync(scene.key, 'utf8')).toBe('planted secret\n');
  }, 60_000);

  it('without --sandbox the same agent sees the key: its check fails and the call ends blocked', async () => {
    const scene = privateHomeScene();
    const client = await connect(scene);

    const envelope = await callOnce(client, scene.objective);

    expect(envelope.result.status).toBe('blocked');
  }, 60_000);

  it('refuses to start where bubblewrap cannot run (exit 2, the install hint), serving nothing unboxed', async () => {
    const scene = privateHomeScene();
    const env = { ...process.env, HOME: scene.home, RALPH_BWRAP: '/nonexistent/bwrap' };

    const run = await ralph(['mcp', '--agent', 'example', '--sandbox'], { cwd: scene.workspace, env });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('bubblewrap (/nonexistent/bwrap) was not found');
    expect(run.stderr).not.toContain('serving');
    expect(run.stdout).toBe('');
  });

  it('refuses a sandbox setting without --sandbox (exit 2)', async () => {
    const scene = privateHomeScene();

    const run = await ralph(['mcp', '--agent', 'example', '--sandbox-network', 'none'], {
      cwd: scene.workspace,
    });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('add --sandbox');
  });
});
