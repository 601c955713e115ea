import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { OBJECTIVE_EMPTY } from '../../src/index.js';
import { notificationSchema } from '../../src/notify/notification.js';
import {
  CLI,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';

const opened: { client: Client; ws: Workspace; hook: NotifyReceiver }[] = [];
afterEach(async () => {
  for (const { client, ws, hook } of opened.splice(0)) {
    await client.close();
    await ws.cleanup();
    await hook.close();
  }
});

/** Spawns `ralph mcp --notify <receiver>` over a workspace holding `plan`; the SDK's own client connects to it. */
async function connect(plan: PlanStep[]): Promise<{ client: Client; hook: NotifyReceiver }> {
  const ws = await makeWorkspace(plan);
  const hook = await startReceiver();
  const tmp = join(ws.dir, '.tmp');
  await mkdir(tmp);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', PLAN_AGENT_COMMAND, '--notify', hook.url],
    cwd: ws.dir,
    env: { TMPDIR: tmp },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-notify-test', version: '1.0.0' });
  await client.connect(transport);
  opened.push({ client, ws, hook });
  return { client, hook };
}

const call = (client: Client, objective: string) =>
  client.callTool({ name: 'ralph', arguments: { objective } }) as Promise<CallToolResult>;

describe('ralph mcp --notify: each call that runs sends its notifications', () => {
  it('a call whose run is blocked: run.blocked with the text the call returned', async () => {
    const { client, hook } = await connect(['continue', 'blocked']);

    const result = await call(client, 'Ship it');

    expect(result.isError).toBeFalsy();
    const [note] = (await hook.untilAccepted(1)).map((body) => notificationSchema.parse(body));
    expect(note).toMatchObject({ event: 'run.blocked', status: 'blocked', rounds: 2 });
    const first = result.content[0];
    expect(note?.text).toBe(first?.type === 'text' ? first.text : undefined);
    expect(note?.runId).toBe((result.structuredContent as { runId: string }).runId);
  });

  it('a call the tool refuses started no run and sends nothing; the next call that runs does', async () => {
    const { client, hook } = await connect(['complete']);

    const refused = await call(client, '');
    expect(refused.isError).toBe(true);
    expect(refused.content[0]).toEqual({ type: 'text', text: OBJECTIVE_EMPTY });
    await call(client, 'Done');

    const notes = (await hook.untilAccepted(1)).map((body) => notificationSchema.parse(body));
    expect(notes).toMatchObject([{ event: 'run.ended', status: 'complete', rounds: 1 }]);
    expect(hook.requests).toHaveLength(1);
  });
});
