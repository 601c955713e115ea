import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BATCH_TASKS_MISSING,
  batchArgsJsonSchema,
  MAX_BATCH_TASKS,
  maxRoundsExceedsCeiling,
  OBJECTIVE_EMPTY,
  tooManyBatchTasks,
} from '../../src/index.js';
import { CLI, isGone, waitUntil } from '../fixtures/cli-agents/harness.js';
import { agentPids, EDIT_AGENT } from '../support/batch-agents.js';
import { extraWorktrees, taskCommitsOn } from '../support/batch-repo.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn } from '../support/git-repo.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** `ralph mcp` (with `flags`) serving a fresh repository whose fake agents log their starts and ends. */
async function connect(flags: string[]) {
  const { repo, env, agentLines } = batchScene([]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', EDIT_AGENT, '--grace-ms', '200', ...flags],
    cwd: repo,
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-batch-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const { pidsOf, alive } = agentPids(agentLines);
  return { client, repo, pidsOf, alive };
}

const textOf = (result: CallToolResult): string => {
  const item = result.content[0];
  return item?.type === 'text' ? item.text : '';
};
const branches = (repo: string): string => gitIn(repo, 'branch', '--format=%(refname:short)');

describe('ralph mcp --batch', () => {
  it('lists ralph_batch only with the flag: without it the tools are exactly ralph', async () => {
    const plain = await connect([]);
    expect((await plain.client.listTools()).tools.map((tool) => tool.name)).toEqual(['ralph']);
    // Nor is it served: a call is an unknown tool, and nothing starts.
    const before = branches(plain.repo);
    await expect(
      plain.client.callTool({
        name: 'ralph_batch',
        arguments: { tasks: [{ id: 'a', objective: 'write a.txt a' }] },
      }),
    ).rejects.toThrow('Unknown tool: ralph_batch');
    expect(branches(plain.repo)).toBe(before);
    expect(plain.pidsOf('start')).toEqual([]);
    const batch = await connect(['--batch']);
    const { tools } = await batch.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ralph', 'ralph_batch']);
    expect(tools[1]?.inputSchema).toEqual(batchArgsJsonSchema);
  });

  it('lands a batch of tasks, with a progress notification per task change and a result listing each end', async () => {
    const { client, repo } = await connect(['--batch']);
    const progress: Progress[] = [];
    const result = (await client.callTool(
      {
        name: 'ralph_batch',
        arguments: {
          tasks: [
            { id: 'docs', objective: 'write docs.txt docs' },
            { id: 'notes', objective: 'write notes.txt notes', after: ['docs'] },
            { id: 'code', objective: 'write code.txt code', maxRounds: 2 },
          ],
          parallel: 2,
        },
      },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;

    expect(result.isError).toBeUndefined();
    const outcome = result.structuredContent as {
      target: string;
      tasks: { id: string; status: string; commit: string; branch: string }[];
    };
    expect(outcome.tasks.map((task) => [task.id, task.status])).toEqual([
      ['docs', 'landed'],
      ['notes', 'landed'],
      ['code', 'landed'],
    ]);
    const text = textOf(result);
    expect(text.split('\n')[0]).toMatch(/^Ralph batch \S+: 3 of 3 task\(s\) landed on ralph\/batch-\S+$/);
    for (const task of outcome.tasks) {
      expect(text).toContain(`- ${task.id}: landed (commit ${task.commit}, branch ${task.branch})`);
      expect(taskCommitsOn(repo, outcome.target, task.id)).toBe(1);
    }
    expect(gitIn(repo, 'show', `${outcome.target}:notes.txt`)).toBe('notes');
    expect(extraWorktrees(repo)).toEqual([]);
    // Every task's changes came as progress, in order, each one above the last.
    const messages = progress.map((update) => update.message);
    for (const id of ['docs', 'notes', 'code']) {
      expect(messages).toContain(`Task ${id} running`);
      expect(messages.filter((message) => message?.startsWith(`Task ${id} landed`))).toHaveLength(1);
    }
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
  }, 60_000);

  it.each([
    ['no tasks', { tasks: [] }, BATCH_TASKS_MISSING],
    [
      'too many tasks',
      {
        tasks: Array.from({ length: MAX_BATCH_TASKS + 1 }, (_, i) => ({
          id: `t${i}`,
          objective: 'write a.txt a',
        })),
      },
      tooManyBatchTasks(MAX_BATCH_TASKS + 1),
    ],
    [
      'an empty objective',
      {
        tasks: [
          { id: 'a', objective: 'write a.txt a' },
          { id: 'b', objective: '  ' },
        ],
      },
      `ralph_batch task "b": ${OBJECTIVE_EMPTY}`,
    ],
    [
      'maxRounds above the deployment ceiling',
      { tasks: [{ id: 'a', objective: 'write a.txt a', maxRounds: 9 }] },
      `ralph_batch task "a": ${maxRoundsExceedsCeiling(9, 5)}`,
    ],
    [
      'a task carrying its own command',
      { tasks: [{ id: 'a', objective: 'write a.txt a', verify: 'rm -rf ~' }] },
      'ralph_batch task "a": only id, objective, after and maxRounds are taken (got verify)',
    ],
  ])('refuses %s as an isError result, starting nothing', async (_, args, message) => {
    const { client, repo, pidsOf } = await connect(['--batch', '--max-rounds', '5']);
    const before = branches(repo);

    const result = (await client.callTool({ name: 'ralph_batch', arguments: args })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: message }]);
    expect(branches(repo)).toBe(before);
    expect(pidsOf('start')).toEqual([]);
  });

  it('cancelled by the client mid-batch, settles only once every agent stopped', async () => {
    const { client, repo, alive } = await connect(['--batch']);
    const controller = new AbortController();
    const call = client.callTool(
      {
        name: 'ralph_batch',
        arguments: {
          tasks: [
            { id: 'a', objective: 'write a.txt a\nhang' },
            { id: 'b', objective: 'write b.txt b\nhang' },
          ],
        },
      },
      undefined,
      { signal: controller.signal },
    );
    const agents = await waitUntil(() => alive().length === 2 && alive(), 'both agents to start');
    controller.abort();
    await expect(call).rejects.toThrow();

    // The server takes another call only once the cancelled one settled: by then no agent of it is left.
    let answer = '';
    while (answer !== BATCH_TASKS_MISSING) {
      const refused = (await client.callTool({ name: 'ralph_batch', arguments: {} })) as CallToolResult;
      answer = textOf(refused);
      expect(answer).toMatch(/^Ralph refused the call: a run is already going|^ralph_batch needs tasks/);
    }
    for (const pid of agents) expect(isGone(pid)).toBe(true);
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);
});
