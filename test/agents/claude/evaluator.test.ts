import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluatorChangedWorkspace } from '../../../src/contract/evaluator-messages.js';
import { verdictJsonSchema } from '../../../src/contract/evaluator-verdict.js';
import { workflowFailed } from '../../../src/contract/messages.js';
import {
  blocksOf,
  hasTool,
  lastMessage,
  type MessageBlock,
  type MessagesRequest,
  messageText,
  startAnthropicServer,
  type Turn,
  toolResults,
} from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';
import { onCleanup } from '../support/cleanups.js';
import {
  ACCEPT,
  BUGGY_ADD,
  evaluatorWorld,
  expectAcceptedInRoundTwo,
  expectMalformedReject,
  FINDING,
  OBJECTIVE,
  REJECT,
  runJudged,
} from '../support/evaluator-run.js';

beforeAll(assertInstalled);

/** The evaluator's prompt: the text of the message its conversation opened with. */
const promptOf = (request: MessagesRequest): string => messageText(request.messages[0]);
/** How many times the model already answered in this conversation. */
const answered = (request: MessagesRequest): number =>
  request.messages.filter((message) => message.role === 'assistant').length;
/** A request of the evaluation of `round`, after the model answered `turns` times in it. */
const evaluating =
  (round: number, turns: number) =>
  (request: MessagesRequest): boolean =>
    hasTool(request, 'StructuredOutput') &&
    promptOf(request).includes(`The worker of round ${round} reported`) &&
    answered(request) === turns;
/** The tool result the request hands back to the model. */
const resultOf = (request: MessagesRequest): MessageBlock | undefined =>
  blocksOf(lastMessage(request)).find((block) => block.type === 'tool_result');
const resultText = (request: MessagesRequest): string => JSON.stringify(resultOf(request)?.content ?? '');
/** The model answers with a verdict through Claude Code's structured-output tool. */
const verdictReply = (verdict: unknown) => ({ toolUse: { name: 'StructuredOutput', input: verdict } });

/** A scripted Anthropic server and a fresh HOME pointing claude at it, with the evaluator's world around them. */
async function claudeWorld(turns: (workspace: string) => Turn[]) {
  const world = await evaluatorWorld();
  const server = await startAnthropicServer(turns(world.workspace));
  onCleanup(() => server.close());
  const home = await claudeHome(server.url);
  onCleanup(() => home.cleanup());
  /** Writes the user's own ~/.claude/settings.json. */
  const userSettings = async (settings: unknown) => {
    await mkdir(join(home.home, '.claude'), { recursive: true });
    await writeFile(join(home.home, '.claude', 'settings.json'), JSON.stringify(settings));
  };
  const run = (extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    runJudged(world, { ...home.env, ...env }, [
      '--evaluator',
      'claude',
      '--claude-path',
      claudePath,
      ...extra,
    ]);
  return { world, server, run, userSettings };
}

describe('ralph run --evaluator claude: the real Claude Code judges the worker’s claim, read-only', () => {
  it('reads add.js, rejects with a finding; the worker fixes it; round 2’s evaluator reads it again and accepts', async () => {
    const { world, server, run } = await claudeWorld((workspace) => {
      const read = { toolUse: { name: 'Read', input: { file_path: join(workspace, 'add.js') } } };
      return [
        { when: evaluating(1, 0), reply: read },
        {
          when: (request) => evaluating(1, 1)(request) && resultText(request).includes('a - b'),
          reply: verdictReply(REJECT),
        },
        { when: evaluating(2, 0), reply: read },
        {
          when: (request) => evaluating(2, 1)(request) && resultText(request).includes('a + b'),
          reply: verdictReply(ACCEPT),
        },
      ];
    });
    const out = await run();

    expect(server.pendingTurns()).toBe(0);
    expect(server.unmatched).toEqual([]);
    // The reject's finding reached round 2's worker through the handoff, which fixed add.js.
    await expectAcceptedInRoundTwo(out, world, 'claude-evaluator');

    const requests = server.requests.filter((logged) => logged.turn !== undefined);
    expect(requests.map((logged) => logged.turn)).toEqual([0, 1, 2, 3]);
    // Each evaluation is its own fresh claude process, started with the read-only flags and the verdict schema.
    const [first, , second] = requests;
    expect(first!.pid).toEqual(expect.any(Number));
    expect(second!.pid).not.toBe(first!.pid);
    for (const logged of [first!, second!]) {
      const argv = logged.argv ?? [];
      expect(argv.slice(argv.indexOf('--permission-mode'), argv.indexOf('--permission-mode') + 4)).toEqual([
        '--permission-mode',
        'dontAsk',
        '--disallowedTools',
        'Edit,Write,NotebookEdit',
      ]);
      expect(JSON.parse(argv[argv.indexOf('--json-schema') + 1]!)).toEqual(verdictJsonSchema);
    }
    for (const [index, request] of server.turnRequests().entries()) {
      const round = index < 2 ? 1 : 2;
      // Reading is offered; editing is not; the verdict schema is what the structured-output tool takes.
      const offered = (request.tools ?? []).map((tool) => tool.name);
      expect(offered).toContain('Read');
      expect(offered.filter((name) => ['Edit', 'Write', 'NotebookEdit'].includes(name))).toEqual([]);
      const structured = request.tools?.find((tool) => tool.name === 'StructuredOutput');
      expect(structured?.input_schema).toEqual(verdictJsonSchema);
      // The prompt holds the objective and the worker's report of that round, and nothing of round 1 in round 2.
      expect(promptOf(request)).toContain(OBJECTIVE);
      expect(promptOf(request)).toContain(`WORKER-CLAIM round ${round}`);
      if (round === 2) expect(JSON.stringify(request.messages)).not.toContain(FINDING);
    }
    // The Read ran: its result came back to the model, not as an error.
    const [, afterRead] = server.turnRequests();
    expect(resultOf(afterRead!)?.is_error ?? false).toBe(false);
  });

  it('its Write and shell-redirect attempts are refused to the model, the workspace stays as it was, its accept completes the run', async () => {
    const { world, server, run } = await claudeWorld((workspace) => {
      const sneaky = join(workspace, 'sneaky.txt');
      return [
        {
          when: evaluating(1, 0),
          reply: { toolUse: { name: 'Write', input: { file_path: sneaky, content: 'x\n' } } },
        },
        {
          when: (request) => evaluating(1, 1)(request) && toolResults(request).length > 0,
          reply: { toolUse: { name: 'Bash', input: { command: `printf 'x\\n' > ${sneaky}` } } },
        },
        {
          when: (request) => evaluating(1, 2)(request) && toolResults(request).length > 0,
          reply: verdictReply(ACCEPT),
        },
      ];
    });
    const out = await run();

    expect(out.code, out.stderr).toBe(0);
    expect(server.pendingTurns()).toBe(0);
    expect(server.unmatched).toEqual([]);
    const envelope = JSON.parse(out.stdout);
    expect(envelope.result).toMatchObject({
      status: 'complete',
      rounds: 1,
      evaluation: { verdict: 'accept' },
    });
    expect(await readdir(world.workspace)).toEqual(['add.js']);
    expect(await readFile(join(world.workspace, 'add.js'), 'utf8')).toBe(BUGGY_ADD);
    // Write is no tool of this child at all; the shell redirect is refused in dontAsk mode. Both came back as errors.
    const [, afterWrite, afterShell] = server.turnRequests();
    for (const request of [afterWrite!, afterShell!]) {
      const result = resultOf(request);
      expect(result?.is_error, JSON.stringify(result)).toBe(true);
    }
  });

  it('the user’s allow rules: Write stays denied (the deny beats them), a pre-approved shell write lands, and the run fails naming the file', async () => {
    const { world, server, run, userSettings } = await claudeWorld((workspace) => [
      {
        when: evaluating(1, 0),
        reply: {
          toolUse: { name: 'Write', input: { file_path: join(workspace, 'written.txt'), content: 'x\n' } },
        },
      },
      {
        when: (request) => evaluating(1, 1)(request) && toolResults(request).length > 0,
        reply: { toolUse: { name: 'Bash', input: { command: 'touch sneaky.txt' } } },
      },
      {
        when: (request) => evaluating(1, 2)(request) && toolResults(request).length > 0,
        reply: verdictReply(ACCEPT),
      },
    ]);
    // dontAsk runs what the user's own rules pre-approve: a shell rule is theirs to give, even to an evaluator.
    await userSettings({ permissions: { allow: ['Write', 'Edit', 'Bash(touch:*)'] } });
    const out = await run();

    expect(server.pendingTurns()).toBe(0);
    const [, afterWrite, afterShell] = server.turnRequests();
    expect(resultOf(afterWrite!)?.is_error).toBe(true);
    expect(resultOf(afterShell!)?.is_error ?? false).toBe(false);
    // The workspace check after the evaluator is what catches it: the accept does not count.
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(workflowFailed(evaluatorChangedWorkspace(1, ['sneaky.txt (added)'])));
    expect(JSON.parse(out.stdout).error).toMatchObject({ code: 'workflow-failed', round: 1 });
    expect((await readdir(world.workspace)).sort()).toEqual(['add.js', 'sneaky.txt']);
  });

  it('a verdict outside the schema is sent back by claude itself; the retried reject with no findings fails the run as malformed', async () => {
    const { world, server, run } = await claudeWorld(() => [
      { when: evaluating(1, 0), reply: verdictReply({ verdict: 'maybe', findings: [], evidence: [] }) },
      {
        when: (request) => evaluating(1, 1)(request) && resultOf(request)?.is_error === true,
        reply: verdictReply({ ...REJECT, findings: [] }),
      },
    ]);
    const out = await run();

    expect(server.pendingTurns()).toBe(0);
    expect(server.unmatched).toEqual([]);
    // Claude Code checked the first answer against --json-schema and handed it back as an error: the schema is
    // enforced natively. The second fits the schema (findings is an array), so claude returned it as it came.
    const [, retry] = server.turnRequests();
    expect(resultOf(retry!)?.content).toContain('Output does not match required schema: /verdict');
    expect(server.turnRequests()).toHaveLength(2);
    // The verdict rules beyond the schema are ralph's to enforce.
    expectMalformedReject(out);
    expect(await readdir(world.workspace)).toEqual(['add.js']);
  });
});

describe('what the real Claude Code evaluator cost counts toward --max-cost', () => {
  it('a worker that spent nothing, an evaluation that cost something: the budget stops the run before round 2', async () => {
    const { server, run } = await claudeWorld((workspace) => [
      {
        when: evaluating(1, 0),
        reply: { toolUse: { name: 'Read', input: { file_path: join(workspace, 'add.js') } } },
      },
      { when: evaluating(1, 1), reply: verdictReply(REJECT) },
    ]);
    // Less than any evaluation costs, however claude prices the model; the worker says it spent $0.
    const out = await run(['--agent-reports-cost', '--max-cost', '0.000001'], {
      FIXTURE_USAGE: '{"costUsd":0}',
    });

    expect(out.code, out.stderr).toBe(4);
    expect(server.pendingTurns()).toBe(0);
    const { result } = JSON.parse(out.stdout);
    expect(result).toMatchObject({
      status: 'budget-limited',
      rounds: 1,
      limit: { kind: 'cost', maxCostUsd: 0.000001 },
      evaluation: { evaluator: 'claude-evaluator', round: 1, verdict: 'reject', findings: [FINDING] },
    });
    // All of it is the evaluator's, read off claude's JSON result: two model calls of 10 in / 5 out tokens.
    expect(result.limit.spentUsd).toBeGreaterThan(0);
    const lines = out.stderr.split('\n');
    expect(lines).toContain(
      'ralph: round 1/2 reported complete: WORKER-CLAIM round 1: add.js exports add(a, b), the sum [$0.00; run total $0.00]',
    );
    expect(lines.find((line) => line.startsWith('ralph: used in all: '))).toMatch(
      / · 20 in \/ 10 out tokens · /,
    );
    expect(lines.some((line) => line.startsWith('ralph: round 2/2 started'))).toBe(false);
  });
});
