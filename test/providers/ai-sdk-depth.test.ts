import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AiSdkProviderOptions, aiSdkProvider } from '../../src/ai-sdk.js';
import {
  createProviderRegistry,
  createRalphTool,
  RalphError,
  type RalphReport,
  ralphDepthLimitReached,
  workflowFailed,
} from '../../src/index.js';
import { callTools, report, scriptedModel, toolResultsIn } from './ai-sdk-mock-model.js';

const completeReport: RalphReport = {
  status: 'complete',
  summary: 'done',
  evidence: ['checked'],
  nextSteps: [],
  blocker: null,
};

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ralph-ai-sdk-depth-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** One call of a ralph tool over an AI SDK child, from a process at Ralph depth `depth`. */
async function callAtDepth(depth: string, options: Partial<AiSdkProviderOptions> = {}) {
  const model = scriptedModel([report(completeReport)]);
  const providers = createProviderRegistry();
  providers.register(aiSdkProvider({ model, baseEnv: { RALPH_DEPTH: depth }, ...options }));
  const tool = createRalphTool({ subagentProvider: 'ai-sdk' }, { providers });
  const outcome = await tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: workspace } }).then(
    (envelope) => envelope,
    (error: unknown) => error,
  );
  return { outcome, model };
}

describe('an AI SDK child is refused at the Ralph depth limit, like a command child', () => {
  it('refuses the round at RALPH_DEPTH 3 (the default limit), naming the depth and the limit, before the model runs', async () => {
    const { outcome, model } = await callAtDepth('3');

    expect(outcome).toBeInstanceOf(RalphError);
    expect((outcome as RalphError).message).toBe(
      workflowFailed(`subagent provider "ai-sdk" failed to start round 1: ${ralphDepthLimitReached(3, 3)}`),
    );
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('runs below the limit', async () => {
    const { outcome } = await callAtDepth('2');
    expect(outcome).toMatchObject({ result: { status: 'complete', rounds: 1 } });
  });

  it('honours a depthLimit of its own', async () => {
    const { outcome } = await callAtDepth('1', { depthLimit: 1 });
    expect((outcome as RalphError).message).toContain(ralphDepthLimitReached(1, 1));
  });

  it('rejects a depthLimit that is not a positive whole number where it is created', () => {
    const model = scriptedModel([]);
    expect(() => aiSdkProvider({ model, depthLimit: 0 })).toThrow(
      new RangeError('depthLimit must be a positive whole number'),
    );
  });
});

describe('the commands an AI SDK child runs are one Ralph level deeper', () => {
  it("run_command sees RALPH_DEPTH one more than the provider's environment, so a ralph it starts counts the level", async () => {
    const model = scriptedModel([
      callTools({
        toolName: 'run_command',
        input: { argv: [process.execPath, '-e', 'process.stdout.write(String(process.env.RALPH_DEPTH))'] },
      }),
      report(completeReport),
    ]);
    const providers = createProviderRegistry();
    providers.register(aiSdkProvider({ model, baseEnv: { ...process.env, RALPH_DEPTH: '1' } }));
    const tool = createRalphTool({ subagentProvider: 'ai-sdk' }, { providers });

    await tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: workspace } });

    const [result] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(result).toMatchObject({
      toolName: 'run_command',
      output: { value: { exitCode: 0, stdout: '2' } },
    });
  });
});
