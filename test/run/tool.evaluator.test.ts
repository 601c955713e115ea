import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ralphAiSdkTool } from '../../src/ai-sdk.js';
import {
  type AgentRef,
  callJsonSchema,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  EVALUATOR_REJECTED_STEP,
  type EvaluatorVerdict,
  evaluatedCompleteLabel,
  evaluatorFindingStep,
  evaluatorLacksStructuredOutput,
  evaluatorNotRegistered,
  type RalphConfigInput,
  type RalphEnvelope,
  type RalphEvaluation,
  type RalphReport,
  renderResultText,
  reviewVerdict,
  type ScriptedStep,
  verdictJsonSchema,
  verdictSchema,
} from '../../src/index.js';
import { answer, callTools, scriptedModel } from '../providers/ai-sdk-mock-model.js';

const complete: RalphReport = {
  status: 'complete',
  summary: 'the parser is ported',
  evidence: ['TASKS.md ticked'],
  nextSteps: [],
  blocker: null,
};
const rejected: EvaluatorVerdict = {
  verdict: 'reject',
  findings: ['parse.ts still throws "not implemented"'],
  evidence: [],
};
const accepted: EvaluatorVerdict = { verdict: 'accept', findings: [], evidence: ['npm test: 12 passed'] };

let workspace: string;
let agent: AgentRef;
beforeEach(async () => {
  // The evaluator's workspace check reads a real folder: the calling agent's.
  workspace = await mkdtemp(join(tmpdir(), 'ralph-tool-evaluator-'));
  agent = { id: 'chat-1', cwd: workspace };
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A tool whose worker always reports complete, judged by a scripted evaluator named `judge` playing `verdicts`. */
function judgedTool(verdicts: ScriptedStep[], config: Partial<RalphConfigInput> = {}) {
  const providers = createProviderRegistry();
  const worker = createScriptedProvider([{ report: complete }]);
  const judge = createScriptedProvider(verdicts, { name: 'judge' });
  providers.register(worker);
  providers.register(judge);
  const tool = createRalphTool(
    { subagentProvider: 'scripted', evaluator: { provider: 'judge' }, ...config },
    { providers },
  );
  return { tool, worker, judge, providers };
}

describe('createRalphTool with an evaluator, through the package root', () => {
  it('a reject hands its findings to a fresh worker; the next accept completes the run', async () => {
    const { tool, worker, judge } = judgedTool([{ report: rejected }, { report: accepted }]);

    const envelope = await tool.execute({ objective: 'Port the parser', maxRounds: 3 }, { agent });

    expect(envelope.agentsStarted).toBe(2);
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2, report: complete });
    const evaluation: RalphEvaluation | undefined = envelope.result.evaluation;
    expect(evaluation).toEqual({
      evaluator: 'judge',
      round: 2,
      verdict: 'accept',
      findings: [],
      evidence: ['npm test: 12 passed'],
      evaluatorsStarted: 2,
    });
    expect(renderResultText(envelope).split('\n')[0]).toBe(evaluatedCompleteLabel(2, 'judge'));
    // The second worker's prompt carries the rejection as its handoff's next steps.
    expect(worker.requests[1]?.prompt).toContain(JSON.stringify(EVALUATOR_REJECTED_STEP));
    expect(worker.requests[1]?.prompt).toContain(
      JSON.stringify(evaluatorFindingStep(rejected.findings[0] as string)),
    );
    // Each evaluator is a child of its own role, asked for a verdict, in the calling agent's workspace.
    expect(judge.requests.map((request) => [request.role, request.round, request.cwd])).toEqual([
      ['evaluator', 1, workspace],
      ['evaluator', 2, workspace],
    ]);
    expect(judge.requests[0]?.outputSchema).toEqual(verdictJsonSchema);
    expect(worker.requests.every((request) => request.role === undefined)).toBe(true);
  });

  it('exports the verdict schema and its review, so a library host can check a verdict as ralph does', () => {
    expect(verdictSchema.safeParse(accepted).success).toBe(true);
    expect(verdictSchema.safeParse({ verdict: 'reject', findings: [], evidence: [] }).success).toBe(false);
    expect(reviewVerdict(accepted, 16_384)).toMatchObject({ state: 'given' });
    expect(reviewVerdict(undefined, 16_384)).toMatchObject({ state: 'missing' });
  });

  it.each([
    ['not registered', 'nobody', {}, evaluatorNotRegistered('nobody')],
    [
      'without structured output',
      'judge',
      { structuredOutput: false },
      evaluatorLacksStructuredOutput('judge'),
    ],
  ])('refuses an evaluator provider %s, and starts no child', async (_, name, capabilities, message) => {
    const providers = createProviderRegistry();
    const worker = createScriptedProvider([{ report: complete }]);
    const judge = createScriptedProvider([{ report: accepted }], { name: 'judge', capabilities });
    providers.register(worker);
    providers.register(judge);
    const tool = createRalphTool(
      { subagentProvider: 'scripted', evaluator: { provider: name } },
      { providers },
    );

    await expect(tool.execute({ objective: 'Port the parser' }, { agent })).rejects.toMatchObject({
      code: 'refused',
      message,
    });
    expect(worker.requests).toEqual([]);
    expect(judge.requests).toEqual([]);
  });

  it('an evaluator field in the call arguments is no setting: the deployment config alone decides', async () => {
    const { tool, judge } = judgedTool([{ report: accepted }]);

    const envelope: RalphEnvelope = await tool.execute(
      { objective: 'Port the parser', evaluator: null },
      { agent },
    );

    expect(envelope.result.evaluation?.verdict).toBe('accept');
    expect(judge.requests).toHaveLength(1);
  });
});

describe('the evaluator is never in the model-facing call schema', () => {
  it('the AI SDK tool offers the model exactly the call schema, and the run is still evaluated', async () => {
    const { tool, judge } = judgedTool([{ report: rejected }, { report: accepted }]);
    const model = scriptedModel([
      callTools({ toolName: 'ralph', input: { objective: 'Port the parser', maxRounds: 3 } }),
      answer('Reported back.'),
    ]);

    const result = await generateText({
      model,
      prompt: 'Run a Ralph loop to port the parser.',
      tools: { [tool.name]: ralphAiSdkTool(tool, { agent }) },
      stopWhen: stepCountIs(3),
    });

    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered).toEqual([expect.objectContaining({ name: 'ralph', inputSchema: callJsonSchema })]);
    expect(JSON.stringify(offered)).not.toContain('evaluator');
    const envelope = result.steps[0]?.toolResults[0]?.output as RalphEnvelope;
    expect(envelope.result.evaluation).toMatchObject({ verdict: 'accept', evaluatorsStarted: 2 });
    expect(judge.requests).toHaveLength(2);
  });
});
