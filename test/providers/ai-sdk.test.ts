import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aiSdkProvider } from '../../src/ai-sdk.js';
import {
  type AgentRef,
  childFailureMessage,
  createProviderRegistry,
  createRalphTool,
  type RalphConfigInput,
  RalphError,
  type RalphReport,
  renderRoundPrompt,
  reportJsonSchema,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../../src/index.js';
import {
  answer,
  callTools,
  type ModelCall,
  report,
  scriptedModel,
  toolResultsIn,
  userTextsIn,
  waitForAbort,
} from './ai-sdk-mock-model.js';
import { isGone, pidsWrittenTo, STUBBORN_PROGRAM } from './ai-sdk-process.js';

const continueReport: RalphReport = {
  status: 'continue',
  summary: 'wrote the draft of NOTES.md',
  evidence: [],
  nextSteps: ['check NOTES.md and finish'],
  blocker: null,
};
const completeReport: RalphReport = {
  status: 'complete',
  summary: 'NOTES.md says hello',
  evidence: ['read NOTES.md back: "hello ralph"'],
  nextSteps: [],
  blocker: null,
};

let workspace = '';
let outside = '';
let agent: AgentRef;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ralph-ai-sdk-'));
  outside = await mkdtemp(path.join(tmpdir(), 'ralph-ai-sdk-outside-'));
  agent = { id: 'parent', cwd: workspace };
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** A ralph tool whose rounds are aiSdkProvider children on `model`. */
function ralphOn(
  model: ReturnType<typeof scriptedModel>,
  providerOptions: { maxSteps?: number; commandTimeoutMs?: number } = {},
  config: Partial<RalphConfigInput> = {},
) {
  const providers = createProviderRegistry();
  providers.register(aiSdkProvider({ model, ...providerOptions }));
  return createRalphTool({ subagentProvider: 'ai-sdk', ...config }, { providers });
}

async function rejection(promise: Promise<unknown>): Promise<RalphError> {
  const error = await promise.then(
    () => new Error('expected the call to reject'),
    (reason: unknown) => reason,
  );
  if (error instanceof RalphError) return error;
  throw error;
}

describe('aiSdkProvider: fresh in-process children on an AI SDK model', () => {
  it('declares structured output and fresh children, under the name "ai-sdk" unless told otherwise', () => {
    const model = scriptedModel([]);
    expect(aiSdkProvider({ model })).toMatchObject({
      name: 'ai-sdk',
      capabilities: { structuredOutput: true, inheritsParentContext: false },
    });
    expect(aiSdkProvider({ model, name: 'gpt' }).name).toBe('gpt');
  });

  it('runs a full loop: the child writes a file with the write tool, the next fresh child completes it', async () => {
    const model = scriptedModel([
      callTools({ toolName: 'write_file', input: { path: 'docs/NOTES.md', content: 'hello ralph' } }),
      report(continueReport),
      callTools({ toolName: 'read_file', input: { path: 'docs/NOTES.md' } }),
      report(completeReport),
    ]);
    const tool = ralphOn(model);

    const envelope = await tool.execute({ objective: 'Write docs/NOTES.md saying hello ralph' }, { agent });

    expect(envelope).toMatchObject({ agentsStarted: 2, result: { status: 'complete', rounds: 2 } });
    expect(envelope.result.report).toEqual(completeReport);
    expect(await readFile(path.join(workspace, 'docs/NOTES.md'), 'utf8')).toBe('hello ralph');

    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(4);
    // Each round's first call carries only the fixed round prompt: no conversation, no earlier round.
    const [round1, , round2, round2Final] = calls as [ModelCall, ModelCall, ModelCall, ModelCall];
    const objective = 'Write docs/NOTES.md saying hello ralph';
    expect(userTextsIn(round1)).toEqual([
      renderRoundPrompt({ objective, round: 1, maxRounds: 256, handoff: null }),
    ]);
    expect(round1.prompt.filter((message) => message.role !== 'system' && message.role !== 'user')).toEqual(
      [],
    );
    expect(userTextsIn(round2)).toEqual([
      renderRoundPrompt({ objective, round: 2, maxRounds: 256, handoff: continueReport }),
    ]);
    expect(round2.prompt.filter((message) => message.role !== 'system' && message.role !== 'user')).toEqual(
      [],
    );
    // The second child read the workspace: the file is the memory between rounds.
    expect(toolResultsIn(round2Final)).toEqual([
      { toolName: 'read_file', output: { type: 'text', value: 'hello ralph' } },
    ]);
    // The report is requested with the report's own JSON Schema, and the workspace tools are offered.
    expect(round1.responseFormat).toMatchObject({ type: 'json', schema: reportJsonSchema });
    expect((round1.tools ?? []).map((t) => t.name).sort()).toEqual([
      'list_files',
      'read_file',
      'run_command',
      'write_file',
    ]);
  });

  it('refuses paths that escape the workspace, through "..", an absolute path or a symbolic link', async () => {
    await symlink(outside, path.join(workspace, 'link'));
    await writeFile(path.join(outside, 'secret.txt'), 'outside');
    const model = scriptedModel([
      callTools(
        { toolName: 'write_file', input: { path: '../escaped.txt', content: 'x' } },
        { toolName: 'write_file', input: { path: path.join(outside, 'absolute.txt'), content: 'x' } },
        { toolName: 'write_file', input: { path: 'link/through-link.txt', content: 'x' } },
        { toolName: 'read_file', input: { path: 'link/secret.txt' } },
        { toolName: 'list_files', input: { path: 'link' } },
      ),
      report({
        status: 'blocked',
        summary: 'every path was refused',
        evidence: [],
        nextSteps: [],
        blocker: 'no access',
      }),
    ]);
    const tool = ralphOn(model);

    const envelope = await tool.execute({ objective: 'write outside the workspace' }, { agent });

    expect(envelope.result.status).toBe('blocked');
    const results = toolResultsIn(model.doGenerateCalls[1]!);
    expect(results).toHaveLength(5);
    for (const result of results) {
      expect(result.output.type).toBe('error-text');
      expect(String(result.output.value)).toMatch(/^Refused: /);
    }
    expect(existsSync(path.join(path.dirname(workspace), 'escaped.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'absolute.txt'))).toBe(false);
    expect(existsSync(path.join(outside, 'through-link.txt'))).toBe(false);
  });

  it('kills a command that runs past its timeout, its whole process group included, and tells the model', async () => {
    const model = scriptedModel([
      callTools({ toolName: 'run_command', input: { argv: [process.execPath, '-e', STUBBORN_PROGRAM] } }),
      report(completeReport),
    ]);
    const tool = ralphOn(model, { commandTimeoutMs: 500 }, { terminationGraceMs: 200 });

    const envelope = await tool.execute({ objective: 'run the stubborn program' }, { agent });

    expect(envelope.result.status).toBe('complete');
    const [result] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(result).toMatchObject({
      toolName: 'run_command',
      output: { type: 'json', value: { timedOut: true, aborted: false, exitCode: null, signal: 'SIGKILL' } },
    });
    const pids = await pidsWrittenTo(path.join(workspace, 'pids.json'));
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
  });

  it('aborted mid-round while a command runs: Ralph workflow was cancelled, after the command has stopped', async () => {
    const model = scriptedModel([
      callTools({ toolName: 'run_command', input: { argv: [process.execPath, '-e', STUBBORN_PROGRAM] } }),
      waitForAbort,
    ]);
    const tool = ralphOn(model, { commandTimeoutMs: 600_000 }, { terminationGraceMs: 200 });
    const controller = new AbortController();

    const call = rejection(tool.execute({ objective: 'run forever' }, { agent, signal: controller.signal }));
    const pids = await pidsWrittenTo(path.join(workspace, 'pids.json'));
    controller.abort();
    const error = await call;

    expect(error.message).toBe(WORKFLOW_CANCELLED);
    expect(error.code).toBe('cancelled');
    for (const pid of pids) expect(isGone(pid)).toBe(true);
  });

  it('aborted while the model is thinking: Ralph workflow was cancelled', async () => {
    const model = scriptedModel([waitForAbort]);
    const tool = ralphOn(model);
    const controller = new AbortController();
    let started: () => void = () => {};
    const modelCalled = new Promise<void>((resolve) => {
      started = resolve;
    });
    const original = model.doGenerate;
    model.doGenerate = (call) => {
      started();
      return original(call);
    };

    const call = rejection(
      tool.execute({ objective: 'think forever' }, { agent, signal: controller.signal }),
    );
    await modelCalled;
    controller.abort();

    expect((await call).message).toBe(WORKFLOW_CANCELLED);
  });

  it('a model error is an ordinary child failure of the round', async () => {
    const model = scriptedModel([
      () => {
        throw new Error('the model endpoint exploded');
      },
    ]);
    const error = await rejection(ralphOn(model).execute({ objective: 'x' }, { agent }));

    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(childFailureMessage(1, null));
    expect(error.detail).toContain('the model endpoint exploded');
  });

  it('an answer that is not JSON is a malformed report naming the parse error: Ralph workflow failed', async () => {
    const model = scriptedModel([answer('I think I am done.')]);
    const error = await rejection(ralphOn(model).execute({ objective: 'x' }, { agent }));

    expect(error.code).toBe('workflow-failed');
    expect(error.message).toBe(
      workflowFailed(
        `round 1 report is malformed: the final answer is not JSON: Unexpected token 'I', "I think I am done." is not valid JSON`,
      ),
    );
  });

  it('a report that breaks the status rules is malformed, not repaired', async () => {
    const model = scriptedModel([report({ ...completeReport, evidence: [] })]);
    const error = await rejection(ralphOn(model).execute({ objective: 'x' }, { agent }));

    expect(error.message).toBe(
      workflowFailed('round 1 report is malformed: evidence: a complete report must carry evidence'),
    );
  });

  it('an empty answer is a missing report', async () => {
    const model = scriptedModel([answer('')]);
    const error = await rejection(ralphOn(model).execute({ objective: 'x' }, { agent }));

    expect(error.message).toBe(workflowFailed('round 1 child finished without a structured report'));
    expect(error.detail).toBe('the final answer was empty');
  });

  it('the last allowed step may not call tools; a child that still does has no report', async () => {
    const listing = callTools({ toolName: 'list_files', input: { path: '.' } });
    const model = scriptedModel([listing, listing, listing]);
    const error = await rejection(ralphOn(model, { maxSteps: 2 }).execute({ objective: 'x' }, { agent }));

    expect(model.doGenerateCalls).toHaveLength(2);
    expect(model.doGenerateCalls[0]!.toolChoice).toEqual({ type: 'auto' });
    expect(model.doGenerateCalls[1]!.toolChoice).toEqual({ type: 'none' });
    expect(error.message).toBe(workflowFailed('round 1 child finished without a structured report'));
    expect(error.detail).toMatch(/^the round ran out of steps \(maxSteps 2\): the model still called a tool/);
  });

  it('a calling agent whose folder does not exist cannot start a child: a provider-start failure', async () => {
    const model = scriptedModel([report(completeReport)]);
    const missing = path.join(workspace, 'no-such-folder');
    const error = await rejection(
      ralphOn(model).execute({ objective: 'x' }, { agent: { id: 'p', cwd: missing } }),
    );

    expect(error.code).toBe('workflow-failed');
    expect(
      error.message.startsWith(workflowFailed('subagent provider "ai-sdk" failed to start round 1: ')),
    ).toBe(true);
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('lists the workspace without following links out of it', async () => {
    await mkdir(path.join(workspace, 'src'));
    await writeFile(path.join(workspace, 'src', 'a.ts'), 'a');
    await writeFile(path.join(outside, 'secret.txt'), 'outside');
    await symlink(outside, path.join(workspace, 'link'));
    const model = scriptedModel([
      callTools({ toolName: 'list_files', input: { path: '.' } }),
      report(completeReport),
    ]);

    await ralphOn(model).execute({ objective: 'look around' }, { agent });

    expect(toolResultsIn(model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'list_files', output: { type: 'text', value: 'link\nsrc/\nsrc/a.ts' } },
    ]);
  });
});
