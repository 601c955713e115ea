import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { ralphAiSdkTools } from '../../src/ai-sdk.js';
import {
  type AgentRef,
  answerTaken,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  notWaiting,
  PERSON_ANSWER_LABEL,
  RALPH_ANSWER_DESCRIPTION,
  type RalphEnvelope,
  RalphError,
  type RalphQuestion,
  type RalphReport,
} from '../../src/index.js';
import { answer, callTools, scriptedModel, toolResultsIn } from '../providers/ai-sdk-mock-model.js';

const agent: AgentRef = { id: 'chat-1', cwd: process.cwd() };
const blocked: RalphReport = {
  status: 'blocked',
  summary: 'cannot migrate yet',
  evidence: [],
  nextSteps: [],
  blocker: 'which database should the migration target?',
};
const complete: RalphReport = {
  status: 'complete',
  summary: 'migrated',
  evidence: ['npm test passed'],
  nextSteps: [],
  blocker: null,
};

/** A ralph tool over a scripted child that blocks, then completes; `asks` sets waitForAnswersMs. */
function ralphOver(asks: boolean) {
  const providers = createProviderRegistry();
  const scripted = createScriptedProvider([{ report: blocked }, { report: complete }]);
  providers.register(scripted);
  const ralph = createRalphTool(
    { subagentProvider: 'scripted', terminationGraceMs: 200, ...(asks ? { waitForAnswersMs: 60_000 } : {}) },
    { providers },
  );
  return { ralph, scripted };
}

describe('ralph_answer beside ralph in an AI SDK app', () => {
  it('is not offered unless the config asks: the tools are { ralph } alone, and no inbox', () => {
    const { ralph } = ralphOver(false);
    const built = ralphAiSdkTools(ralph, { agent });
    expect(Object.keys(built.tools)).toEqual(['ralph']);
    expect(built.inbox).toBeUndefined();
  });

  it("another generation answers the waiting call through ralph_answer; the run's next round has the answer", async () => {
    const { ralph, scripted } = ralphOver(true);
    const { tools, inbox } = ralphAiSdkTools(ralph, { agent });
    expect(Object.keys(tools)).toEqual(['ralph', 'ralph_answer']);

    // A supervising generation (a person's chat, say) sees the question and answers it with the tool.
    const supervisors: ReturnType<typeof scriptedModel>[] = [];
    const answered: Promise<unknown>[] = [];
    inbox?.onQuestion((question: RalphQuestion) => {
      const model = scriptedModel([
        callTools({ toolName: 'ralph_answer', input: { runId: question.runId, answer: 'postgres' } }),
        answer('Answered.'),
      ]);
      supervisors.push(model);
      answered.push(
        generateText({
          model,
          prompt: `The run asks: ${question.question}`,
          tools: { ralph_answer: tools.ralph_answer! },
          stopWhen: stepCountIs(2),
        }),
      );
    });
    const parent = scriptedModel([
      callTools({ toolName: 'ralph', input: { objective: 'migrate the schema' } }),
      answer('Reported back.'),
    ]);
    const result = await generateText({
      model: parent,
      prompt: 'Run a Ralph loop.',
      tools,
      stopWhen: stepCountIs(3),
    });
    await Promise.all(answered);

    const envelope = result.steps[0]!.toolResults[0]!.output as RalphEnvelope;
    expect(envelope.result).toEqual({ status: 'complete', rounds: 2, report: complete });
    expect(scripted.requests[1]?.handoff?.nextSteps).toContain(`${PERSON_ANSWER_LABEL} postgres`);
    expect(toolResultsIn(supervisors[0]!.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph_answer', output: { type: 'text', value: answerTaken(envelope.runId, 1) } },
    ]);
    const offered = parent.doGenerateCalls[0]!.tools ?? [];
    expect(offered.map((tool) => [tool.name, tool.type === 'function' ? tool.description : ''])).toEqual([
      ['ralph', ralph.description],
      ['ralph_answer', RALPH_ANSWER_DESCRIPTION],
    ]);
  });

  it('an answer for a run that is not waiting reaches the model as an error with the refusal', async () => {
    const { ralph } = ralphOver(true);
    const { tools } = ralphAiSdkTools(ralph, { agent });
    const model = scriptedModel([
      callTools({ toolName: 'ralph_answer', input: { runId: 'run-x', answer: 'postgres' } }),
      answer('Oh.'),
    ]);
    const result = await generateText({ model, prompt: 'answer', tools, stopWhen: stepCountIs(2) });

    expect(toolResultsIn(model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph_answer', output: { type: 'error-text', value: notWaiting('run-x') } },
    ]);
    const errors = result.steps[0]!.content.flatMap((part) =>
      part.type === 'tool-error' ? [part.error] : [],
    );
    expect(errors[0]).toBeInstanceOf(RalphError);
    expect(errors[0]).toMatchObject({ code: 'refused' });
  });
});
