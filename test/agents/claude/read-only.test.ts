import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claudeProvider } from '../../../src/index.js';
import {
  blocksOf,
  hasTool,
  lastMessage,
  type MessagesRequest,
  startAnthropicServer,
  toolResults,
} from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';
import { checkedReport, readOnlyRound } from '../support/read-only-round.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

/** How many times the model already answered in this conversation. */
const answered = (request: MessagesRequest): number =>
  request.messages.filter((message) => message.role === 'assistant').length;

describe('the claude preset with readOnly runs the real Claude Code in dontAsk mode, its edit tools denied', () => {
  it('the model reads the workspace; its writes (Write, a shell redirect) are refused; its structured report arrives', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ro-'));
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    await writeFile(join(workspace, 'notes.txt'), 'original\n');
    const notes = join(workspace, 'notes.txt');
    const server = await startAnthropicServer([
      {
        when: (request) => hasTool(request, 'StructuredOutput') && answered(request) === 0,
        reply: { toolUse: { name: 'Read', input: { file_path: notes } } },
      },
      {
        when: (request) => answered(request) === 1 && toolResults(request).length > 0,
        reply: { toolUse: { name: 'Write', input: { file_path: notes, content: 'changed\n' } } },
      },
      {
        when: (request) => answered(request) === 2 && toolResults(request).length > 0,
        reply: { toolUse: { name: 'Bash', input: { command: `printf 'changed\\n' > ${notes}` } } },
      },
      {
        when: (request) => answered(request) === 3 && toolResults(request).length > 0,
        reply: { toolUse: { name: 'StructuredOutput', input: checkedReport('notes.txt') } },
      },
    ]);
    cleanups.push(() => server.close());
    const home = await claudeHome(server.url);
    cleanups.push(() => home.cleanup());

    const provider = claudeProvider({ path: claudePath, baseEnv: home.env, readOnly: true });
    const envelope = await readOnlyRound(provider, workspace);

    expect(envelope.result).toEqual({ status: 'complete', rounds: 1, report: checkedReport('notes.txt') });
    expect(server.pendingTurns()).toBe(0);
    expect(server.unmatched).toEqual([]);
    expect(await readFile(notes, 'utf8')).toBe('original\n');
    expect(await readdir(workspace)).toEqual(['notes.txt']);

    const [first, afterRead, afterWrite, afterShell] = server.turnRequests() as [
      MessagesRequest,
      MessagesRequest,
      MessagesRequest,
      MessagesRequest,
    ];
    const resultOf = (request: MessagesRequest) =>
      blocksOf(lastMessage(request)).find((block) => block.type === 'tool_result');
    // Reading the workspace works: the evaluator can check it.
    expect(resultOf(afterRead)?.is_error ?? false).toBe(false);
    expect(JSON.stringify(resultOf(afterRead)?.content)).toContain('original');
    // The edit tools are not offered at all; reading is.
    const offered = (first.tools ?? []).map((tool) => tool.name);
    expect(offered).toContain('Read');
    expect(offered.filter((name) => ['Edit', 'Write', 'NotebookEdit'].includes(name))).toEqual([]);
    // Both attempts came back to the model as errors (no such tool; denied in don't-ask mode), neither as done.
    for (const request of [afterWrite, afterShell]) {
      const result = resultOf(request);
      expect(result?.is_error, JSON.stringify(result)).toBe(true);
    }
  });
});
