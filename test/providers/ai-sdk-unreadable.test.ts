import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aiSdkProvider } from '../../src/ai-sdk.js';
import {
  type ChildRequest,
  isUnreadableReport,
  renderRoundPrompt,
  reportJsonSchema,
  type UnreadableReport,
} from '../../src/index.js';
import { answer, callTools, type ModelResult, scriptedModel } from './ai-sdk-mock-model.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ralph-ai-sdk-unreadable-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** What one round of an AI SDK child on `model` resolves its report with, asked for directly of the provider. */
async function roundReport(turns: ModelResult[], maxSteps?: number): Promise<unknown> {
  const provider = aiSdkProvider({
    model: scriptedModel(turns),
    ...(maxSteps === undefined ? {} : { maxSteps }),
  });
  const input = { objective: 'x', round: 1, maxRounds: 1, handoff: null };
  const request: ChildRequest = {
    runId: 'run',
    ...input,
    prompt: renderRoundPrompt(input),
    outputSchema: reportJsonSchema,
    cwd: workspace,
    parent: { id: 'parent', cwd: workspace },
  };
  const child = await provider.start(request, {
    signal: new AbortController().signal,
    terminationGraceMs: 1000,
  });
  return child.report;
}

function unreadable(value: unknown): Pick<UnreadableReport, 'kind' | 'problem'> {
  if (!isUnreadableReport(value))
    throw new Error(`expected an unreadable report, got ${JSON.stringify(value)}`);
  return { kind: value.kind, problem: value.problem };
}

const listing = callTools({ toolName: 'list_files', input: { path: '.' } });

/**
 * The machine carries an unreadable report's problem as the failure's detail (or names it in the malformed message);
 * these tests read the provider's resolved value directly.
 */
describe('an AI SDK child that leaves no usable report says why, in the SDK’s words', () => {
  it('out of steps while still calling tools: a missing report that says the round ran out of steps', async () => {
    expect(unreadable(await roundReport([listing, listing], 2))).toEqual({
      kind: 'missing',
      problem:
        'the round ran out of steps (maxSteps 2): the model still called a tool at its last step, where tools are off (Model response contained a tool call even though tool choice was none.)',
    });
  });

  it('a last step that ends without an answer: a missing report with the finish reason and the SDK’s text', async () => {
    const cutOff: ModelResult = {
      ...answer(''),
      content: [],
      finishReason: { unified: 'length', raw: 'max_tokens' },
    };
    expect(unreadable(await roundReport([cutOff]))).toEqual({
      kind: 'missing',
      problem:
        'the model ended step 1 of 50 with no final answer (finish reason: length): No output generated.',
    });
  });

  it('an empty final answer: a missing report that says so', async () => {
    expect(unreadable(await roundReport([answer('')]))).toEqual({
      kind: 'missing',
      problem: 'the final answer was empty',
    });
  });

  it('a final answer that is not JSON: a malformed report naming the parse error', async () => {
    expect(unreadable(await roundReport([answer('I think I am done.')]))).toEqual({
      kind: 'malformed',
      problem: `the final answer is not JSON: Unexpected token 'I', "I think I am done." is not valid JSON`,
    });
  });

  it('a final answer cut off by the token limit: the parse error and the finish reason', async () => {
    const cut: ModelResult = {
      ...answer('{"status": "compl'),
      finishReason: { unified: 'length', raw: undefined },
    };
    expect(unreadable(await roundReport([cut]))).toEqual({
      kind: 'malformed',
      problem:
        'the final answer is not JSON: Unterminated string in JSON at position 17 (finish reason: length)',
    });
  });

  it('valid JSON of the wrong shape goes to the run as it is, for its checks to name the problem', async () => {
    await expect(roundReport([answer('{"status":"done"}')])).resolves.toEqual({ status: 'done' });
    await expect(roundReport([answer('"done"')])).resolves.toBe('done');
  });
});
