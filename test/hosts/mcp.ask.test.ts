import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { notWaiting } from '../../src/actors/answer-inbox.js';
import { QUESTION_META_KEY } from '../../src/hosts/mcp/call-progress.js';
import {
  ANSWER_OR_GIVE_UP,
  answeredProgressText,
  answerTaken,
  answerTextProblem,
  giveUpTaken,
  howToAnswer,
  howToAnswerWithTool,
  MAX_ANSWER_CHARS,
  PERSON_ANSWER_LABEL,
  questionProgressText,
  RALPH_ANSWER_TOOL,
  unansweredLine,
} from '../../src/index.js';
import { notificationSchema } from '../../src/notify/notification.js';
import { leaveAnswer } from '../../src/run/answer-folder.js';
import {
  CLI,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';

const BLOCKER = 'the API key is missing';
const DAY_MS = 86_400_000;

const opened: { client: Client; ws: Workspace; hook?: NotifyReceiver }[] = [];
afterEach(async () => {
  for (const { client, ws, hook } of opened.splice(0)) {
    await client.close();
    await ws.cleanup();
    await hook?.close();
  }
});

/**
 * Spawns the real `ralph mcp` over a workspace holding `plan` (its own HOME, so the answer folder is the test's), with
 * `flags`; the SDK's own client connects over stdio.
 */
async function connect(
  plan: PlanStep[],
  flags: string[],
): Promise<{ client: Client; ws: Workspace; home: string }> {
  const ws = await makeWorkspace(plan);
  const home = join(ws.dir, '.home');
  const tmp = join(ws.dir, '.tmp');
  await mkdir(home);
  await mkdir(tmp);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent-command', PLAN_AGENT_COMMAND, ...flags],
    cwd: ws.dir,
    env: { HOME: home, TMPDIR: tmp },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'ralph-mcp-ask-test', version: '1.0.0' });
  await client.connect(transport);
  opened.push({ client, ws });
  return { client, ws, home };
}

/** The question a pending call's progress carries, as a client reads it. */
interface QuestionMeta {
  runId: string;
  round: number;
  maxRounds: number;
  question: string;
  waitMs: number;
  answerTool: string;
}

/** Calls ralph with a progress token; `question` resolves with the first progress that carries a question. */
function callRalph(client: Client, objective: string, signal?: AbortSignal) {
  const progress: Progress[] = [];
  let asked: (meta: QuestionMeta) => void = () => {};
  const question = new Promise<QuestionMeta>((resolve) => {
    asked = resolve;
  });
  const result = client.callTool({ name: 'ralph', arguments: { objective, maxRounds: 4 } }, undefined, {
    onprogress: (update) => {
      progress.push(update);
      // The SDK hands the handler the notification's params, `_meta` included, though its type leaves it out.
      const meta = (update as { _meta?: Record<string, unknown> })._meta?.[QUESTION_META_KEY];
      if (meta !== undefined) asked(meta as QuestionMeta);
    },
    ...(signal === undefined ? {} : { signal }),
  }) as Promise<CallToolResult>;
  return { result, question, progress };
}

const answerCall = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: RALPH_ANSWER_TOOL, arguments: args }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult): string | undefined => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : undefined;
};

describe('ralph mcp without --ask', () => {
  it('lists the ralph tool alone, and a ralph_answer call is an unknown tool', async () => {
    const { client } = await connect(['blocked'], []);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ralph']);
    await expect(answerCall(client, { runId: 'x', answer: 'hi' })).rejects.toThrow(
      `Unknown tool: ${RALPH_ANSWER_TOOL}`,
    );
  });
});

describe('ralph mcp --ask: a blocked call waits, and ralph_answer answers it', () => {
  it('lists ralph_answer beside ralph, with its input schema', async () => {
    const { client } = await connect(['blocked'], ['--ask']);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ralph', RALPH_ANSWER_TOOL]);
    expect(tools[1]?.inputSchema).toMatchObject({
      type: 'object',
      required: ['runId'],
      properties: { answer: { type: 'string', maxLength: 8192 }, giveUp: { type: 'boolean' } },
    });
  });

  it('the progress carries the question; the answer starts round 2 with it, and the call completes', async () => {
    const { client, ws } = await connect(['blocked', 'complete'], ['--ask']);

    const call = callRalph(client, 'Deploy to staging');
    const question = await call.question;
    expect(question).toMatchObject({ round: 1, maxRounds: 4, question: BLOCKER, waitMs: DAY_MS });
    expect(question.answerTool).toBe(RALPH_ANSWER_TOOL);
    expect(call.progress.at(-1)?.message).toBe(
      questionProgressText({ ...question }, howToAnswerWithTool(question.runId)),
    );

    // Refused while it waits, and the run still waits: an empty answer, neither answer nor giveUp, another run.
    const empty = await answerCall(client, { runId: question.runId, answer: '   ' });
    expect(empty).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Ralph cannot take an empty answer' }],
    });
    const neither = await answerCall(client, { runId: question.runId });
    expect(neither).toMatchObject({ isError: true, content: [{ type: 'text', text: ANSWER_OR_GIVE_UP }] });
    const long = await answerCall(client, {
      runId: question.runId,
      answer: 'x'.repeat(MAX_ANSWER_CHARS + 1),
    });
    expect(long).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: answerTextProblem('x'.repeat(MAX_ANSWER_CHARS + 1)) }],
    });
    const other = await answerCall(client, { runId: 'no-such-run', answer: 'hi' });
    expect(other).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: notWaiting('no-such-run') }],
    });

    const answered = await answerCall(client, { runId: question.runId, answer: 'use the staging key' });
    expect(answered.isError).toBeFalsy();
    expect(textOf(answered)).toBe(answerTaken(question.runId, 1));

    const result = await call.result;
    expect(result.structuredContent).toMatchObject({
      runId: question.runId,
      result: { status: 'complete', rounds: 2 },
    });
    expect(ws.promptOf(2)).toContain(`${PERSON_ANSWER_LABEL} use the staging key`);
    expect(call.progress.map((update) => update.message)).toContain(answeredProgressText(1, 'mcp'));
    const values = call.progress.map((update) => update.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
  });

  it('a ralph_answer for a run that is not waiting is refused as a tool error', async () => {
    const { client } = await connect(['complete'], ['--ask']);

    const done = await callRalph(client, 'Finish').result;
    const { runId } = done.structuredContent as { runId: string };
    const late = await answerCall(client, { runId, answer: 'too late' });
    expect(late).toMatchObject({ isError: true, content: [{ type: 'text', text: notWaiting(runId) }] });
  });

  it('cancelling the call while it waits ends the run cancelled; giveUp ends the next call blocked', async () => {
    const hook = await startReceiver();
    // Two at once: the next call never races the cancelled one's settling; the hook says when that run ended.
    const { client, ws } = await connect(
      ['blocked', 'complete'],
      ['--ask', '--notify', hook.url, '--max-concurrent-runs', '2'],
    );
    opened.at(-1)!.hook = hook;
    const controller = new AbortController();

    const cancelled = callRalph(client, 'Deploy', controller.signal);
    const first = await cancelled.question;
    controller.abort();
    await expect(cancelled.result).rejects.toThrow();
    const notes = (await hook.untilAccepted(2)).map((body) => notificationSchema.parse(body));
    expect(notes.map((note) => [note.event, note.status])).toEqual([
      ['run.question', 'waiting'],
      ['run.ended', 'cancelled'],
    ]);
    const refused = await answerCall(client, { runId: first.runId, answer: 'hi' });
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: notWaiting(first.runId) }],
    });
    expect(ws.pidOf(2)).toBeUndefined();

    // Listed first, the output schema is the client's: it checks the blocked envelope's question against it.
    await client.listTools();
    const next = callRalph(client, 'Deploy again');
    const second = await next.question;
    const givenUp = await answerCall(client, { runId: second.runId, giveUp: true });
    expect(textOf(givenUp)).toBe(giveUpTaken(second.runId, 1));
    const result = await next.result;
    expect(result.structuredContent).toMatchObject({
      result: { status: 'blocked', rounds: 1, question: { round: 1, reason: 'given-up', waitMs: DAY_MS } },
    });
    expect(textOf(result)).toContain(unansweredLine({ round: 1, reason: 'given-up', waitMs: DAY_MS }));
    expect(ws.pidOf(2)).toBeUndefined();
  });

  it('--wait-for-answers bounds the wait, and an answer left in the answer folder (ralph answer) is taken', async () => {
    const { client, ws, home } = await connect(['blocked', 'complete'], ['--wait-for-answers', '10m']);

    const call = callRalph(client, 'Deploy to staging');
    const question = await call.question;
    expect(question.waitMs).toBe(600_000);
    leaveAnswer(
      question.runId,
      { kind: 'answer', text: 'from a terminal', by: 'terminal' },
      join(home, '.ralph'),
    );

    expect((await call.result).structuredContent).toMatchObject({
      result: { status: 'complete', rounds: 2 },
    });
    expect(ws.promptOf(2)).toContain(`${PERSON_ANSWER_LABEL} from a terminal`);
  });
});

describe('ralph mcp --wait-for-answers: nobody answers', () => {
  it('the call ends blocked once the wait runs out, its text saying nobody answered', async () => {
    const { client, ws } = await connect(['blocked', 'complete'], ['--wait-for-answers', '300ms']);

    const call = callRalph(client, 'Deploy to staging');
    expect((await call.question).waitMs).toBe(300);
    const result = await call.result;

    expect(result.structuredContent).toMatchObject({
      result: { status: 'blocked', rounds: 1, question: { round: 1, reason: 'timed-out', waitMs: 300 } },
    });
    expect(textOf(result)).toContain(unansweredLine({ round: 1, reason: 'timed-out', waitMs: 300 }));
    expect(call.progress.at(-1)?.message).toBe(
      unansweredLine({ round: 1, reason: 'timed-out', waitMs: 300 }),
    );
    expect(ws.pidOf(2)).toBeUndefined();
  });

  it('a duration that is not one is refused before the server starts (exit 2)', async () => {
    const ws = await makeWorkspace(['complete']);
    try {
      const out = await ralph(['mcp', '--agent-command', PLAN_AGENT_COMMAND, '--wait-for-answers', 'soon'], {
        cwd: ws.dir,
      });
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain('--wait-for-answers');
    } finally {
      await ws.cleanup();
    }
  });
});

describe('ralph mcp --ask --notify', () => {
  it('sends run.question with the question and both ways to answer, then the ending', async () => {
    const hook = await startReceiver();
    const { client } = await connect(['blocked', 'complete'], ['--ask', '--notify', hook.url]);
    opened.at(-1)!.hook = hook;

    const call = callRalph(client, 'Deploy to staging');
    const question = await call.question;
    const [asked] = (await hook.untilAccepted(1)).map((body) => notificationSchema.parse(body));
    expect(asked).toMatchObject({
      event: 'run.question',
      status: 'waiting',
      runId: question.runId,
      round: 1,
      rounds: 1,
      question: BLOCKER,
    });
    expect(asked?.text).toContain(howToAnswerWithTool(question.runId));
    expect(asked?.text).toContain(howToAnswer(question.runId));

    await answerCall(client, { runId: question.runId, answer: 'use the staging key' });
    await call.result;
    const notes = (await hook.untilAccepted(2)).map((body) => notificationSchema.parse(body));
    expect(notes[1]).toMatchObject({ event: 'run.ended', status: 'complete', rounds: 2 });
  });
});
