import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { callJsonSchema, evaluatedCompleteLabel, type RalphEnvelope } from '../../src/index.js';
import { CLI, ralph } from '../fixtures/cli-agents/harness.js';
import { judgeCommand, useEvaluatorScene, workerCommand } from '../fixtures/evaluators/harness.js';

const scene = useEvaluatorScene();
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** `ralph mcp` of the honest scripted worker judged by `judge`, in the scene's workspace, with the SDK's own client. */
async function connect(judge: string[], ...extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      CLI,
      'mcp',
      '--agent-command',
      workerCommand('honest'),
      '--evaluator-command',
      judgeCommand(...judge),
      ...extra,
    ],
    cwd: scene.scratch.workspace,
    env: {
      FIXTURE_PID_LOG: scene.scratch.pidLog,
      FIXTURE_RECORD: `${scene.scratch.logs}/workers.jsonl`,
      FIXTURE_EVALUATOR_RECORD: `${scene.scratch.logs}/judges.jsonl`,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-evaluator-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: CallToolResult): string => {
  const [item] = result.content;
  return item?.type === 'text' ? item.text : '';
};

describe('ralph mcp --evaluator-command', () => {
  it('lists the ralph tool with exactly the call schema: the evaluator is deployment config, not a call field', async () => {
    const client = await connect(['needs', 'add.js']);

    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.inputSchema)).toEqual([callJsonSchema]);
    expect(JSON.stringify(tools[0]?.inputSchema)).not.toContain('evaluator');
  });

  it('a call whose evaluator rejects once then accepts runs two rounds and comes back complete, evaluated', async () => {
    const client = await connect(['reject-once']);
    // Listing first makes the client check structuredContent against the advertised output schema.
    await client.listTools();
    const progress: Progress[] = [];

    const result = (await client.callTool(
      { name: 'ralph', arguments: { objective: 'Write add.js', maxRounds: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    )) as CallToolResult;

    expect(result.isError).toBeFalsy();
    const envelope = result.structuredContent as unknown as RalphEnvelope;
    expect(envelope).toMatchObject({ agentsStarted: 2, result: { status: 'complete', rounds: 2 } });
    expect(envelope.result.evaluation).toEqual({
      evaluator: 'command-evaluator',
      round: 2,
      verdict: 'accept',
      findings: [],
      evidence: ['the second look found the work done'],
      evaluatorsStarted: 2,
    });
    expect(textOf(result).split('\n')[0]).toBe(evaluatedCompleteLabel(2, 'command-evaluator'));
    // The rejection reached the second worker, and each evaluator knew its role.
    expect(scene.workers()[1]?.prompt).toContain(
      'Evaluator finding: the first look found the work unfinished',
    );
    expect(scene.judges().map((judge) => judge.env.RALPH_ROLE)).toEqual(['evaluator', 'evaluator']);
    expect(progress.map(({ message }) => message)).toContain('Round 1/3 evaluator rejected: 1 finding');
  });

  it('an evaluator argument in the call does not switch the evaluator off', async () => {
    const client = await connect(['needs', 'add.js']);
    await client.listTools();

    const result = (await client.callTool({
      name: 'ralph',
      arguments: { objective: 'Write add.js', evaluator: null },
    })) as CallToolResult;

    expect((result.structuredContent as unknown as RalphEnvelope).result.evaluation?.verdict).toBe('accept');
    expect(scene.judges()).toHaveLength(1);
  });

  it('the time limit running out during the evaluation: budget-limited, naming the unevaluated round', async () => {
    const client = await connect(['hang'], '--max-time', '6s');
    // Listed first, so the client checks the result against the output schema, limit.unevaluatedRound included.
    await client.listTools();

    const result = (await client.callTool({
      name: 'ralph',
      arguments: { objective: 'Write add.js' },
    })) as CallToolResult;

    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as unknown as RalphEnvelope).result).toMatchObject({
      status: 'budget-limited',
      limit: { kind: 'time', unevaluatedRound: 1 },
    });
  });

  it('refuses an evaluator command whose program is missing before it serves anything (exit 2)', async () => {
    const out = await ralph(
      ['mcp', '--agent-command', workerCommand('honest'), '--evaluator-command', 'no-such-judge'],
      { cwd: scene.scratch.workspace },
    );

    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      'ralph: the --evaluator-command program "no-such-judge" was not found on PATH',
    );
  });
});
