import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { ralphAiSdkTool } from '../../src/ai-sdk.js';
import {
  type AgentRef,
  callJsonSchema,
  childFailureMessage,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  OBJECTIVE_EMPTY,
  RALPH_GUIDANCE,
  type RalphEnvelope,
  RalphError,
  type RalphReport,
  renderResultText,
  type ScriptedStep,
  WORKFLOW_CANCELLED,
} from '../../src/index.js';
import {
  answer,
  callTools,
  scriptedModel,
  toolResultsIn,
  waitForAbort,
} from '../providers/ai-sdk-mock-model.js';

const agent: AgentRef = { id: 'chat-1', cwd: process.cwd() };
const complete: RalphReport = {
  status: 'complete',
  summary: 'all done',
  evidence: ['npm test passed'],
  nextSteps: [],
  blocker: null,
};
const next: RalphReport = {
  status: 'continue',
  summary: 'half done',
  evidence: [],
  nextSteps: ['do the other half'],
  blocker: null,
};

/** A parent app: a mock model whose first turn calls `ralph` with `args`, and whose second turn answers. */
function parentApp(steps: ScriptedStep[], args: unknown) {
  const providers = createProviderRegistry();
  const scripted = createScriptedProvider(steps);
  providers.register(scripted);
  const ralph = createRalphTool({ subagentProvider: 'scripted', terminationGraceMs: 200 }, { providers });
  const model = scriptedModel([callTools({ toolName: 'ralph', input: args }), answer('Reported back.')]);
  const run = (abortSignal?: AbortSignal) =>
    generateText({
      model,
      system: ralph.guidance,
      prompt: 'Run a Ralph loop to finish the work.',
      tools: { [ralph.name]: ralphAiSdkTool(ralph, { agent }) },
      stopWhen: stepCountIs(3),
      ...(abortSignal === undefined ? {} : { abortSignal }),
    });
  return { ralph, scripted, model, run };
}

describe('ralph as an AI SDK tool', () => {
  it('shows the model the fixed guidance and exactly the tool call schema', async () => {
    const app = parentApp([{ report: complete }], { objective: 'finish' });
    await app.run();

    const offered = app.model.doGenerateCalls[0]!.tools ?? [];
    expect(offered).toEqual([
      expect.objectContaining({
        type: 'function',
        name: 'ralph',
        description: RALPH_GUIDANCE,
        inputSchema: callJsonSchema,
      }),
    ]);
  });

  it('runs the loop and gives the model the native result text; the host keeps the envelope', async () => {
    const app = parentApp([{ report: next }, { report: complete }], {
      objective: 'finish the work',
      maxRounds: 3,
    });
    const result = await app.run();

    const [toolResult] = result.steps[0]!.toolResults;
    const envelope = toolResult!.output as RalphEnvelope;
    expect(envelope.result).toEqual({ status: 'complete', rounds: 2, report: complete });
    expect(app.scripted.requests.map((r) => r.maxRounds)).toEqual([3, 3]);
    expect(app.scripted.requests.every((r) => r.parent === agent && r.cwd === agent.cwd)).toBe(true);
    expect(toolResultsIn(app.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph', output: { type: 'text', value: renderResultText(envelope) } },
    ]);
    expect(result.text).toBe('Reported back.');
  });

  it('a refused call reaches the model as an error carrying the seed message, and starts no child', async () => {
    const app = parentApp([{ report: complete }], { objective: '' });
    const result = await app.run();

    expect(toolResultsIn(app.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph', output: { type: 'error-text', value: OBJECTIVE_EMPTY } },
    ]);
    // The host sees the RalphError itself, code included.
    const toolErrors = result.steps[0]!.content.flatMap((part) =>
      part.type === 'tool-error' ? [part.error] : [],
    );
    expect(toolErrors).toEqual([expect.any(RalphError)]);
    expect(toolErrors[0]).toMatchObject({ code: 'refused', message: OBJECTIVE_EMPTY });
    expect(app.scripted.requests).toHaveLength(0);
  });

  it('the SDK does not pre-validate the call: a wrong type or a null maxRounds reaches the tool checks', async () => {
    const wrongType = parentApp([{ report: complete }], { objective: 42 });
    await wrongType.run();
    expect(toolResultsIn(wrongType.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph', output: { type: 'error-text', value: OBJECTIVE_EMPTY } },
    ]);

    // Models in strict structured-output mode send null for an optional field; it counts as absent.
    const strict = parentApp([{ report: complete }], { objective: 'finish', maxRounds: null });
    await strict.run();
    expect(strict.scripted.requests.map((r) => r.maxRounds)).toEqual([256]);
  });

  it('a child failure reaches the model with the round and the last successful handoff', async () => {
    const app = parentApp([{ report: next }, { childError: 'crashed' }], { objective: 'finish' });
    await app.run();

    expect(toolResultsIn(app.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph', output: { type: 'error-text', value: childFailureMessage(2, next) } },
    ]);
  });

  it("aborting the host's call cancels the run and stops the child before the tool settles", async () => {
    const app = parentApp([{ hang: true, stopDelayMs: 50 }], { objective: 'finish' });
    const controller = new AbortController();
    let ralphError: unknown;
    const model = scriptedModel([
      callTools({ toolName: 'ralph', input: { objective: 'finish' } }),
      waitForAbort,
    ]);
    const call = generateText({
      model,
      prompt: 'go',
      tools: { ralph: ralphAiSdkTool(app.ralph, { agent }) },
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
      // What the ralph tool itself settled with; the SDK then rejects the whole aborted call.
      experimental_onToolCallFinish: (event) => {
        if (!event.success) ralphError = event.error;
      },
    });
    const settled = call.then(
      () => 'resolved',
      () => 'rejected',
    );
    while (app.scripted.running === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();

    expect(await settled).toBe('rejected');
    expect(ralphError).toBeInstanceOf(RalphError);
    expect((ralphError as RalphError).message).toBe(WORKFLOW_CANCELLED);
    expect(app.scripted.running).toBe(0);
  });
});
