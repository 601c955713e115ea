import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { ralphBatchAiSdkTool } from '../../src/ai-sdk.js';
import {
  type BatchOutcome,
  batchArgsJsonSchema,
  batchResultText,
  OBJECTIVE_EMPTY,
  RalphError,
} from '../../src/index.js';
import { isGone, waitUntil } from '../fixtures/cli-agents/harness.js';
import {
  answer,
  callTools,
  type ModelTurn,
  scriptedModel,
  toolResultsIn,
  waitForAbort,
} from '../providers/ai-sdk-mock-model.js';
import { agentPids, EDIT_AGENT } from '../support/batch-agents.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn } from '../support/git-repo.js';

/** The fake agents log their starts and ends to BATCH_AGENT_LOG, which they read from this process's environment. */
const logged = process.env.BATCH_AGENT_LOG;
afterEach(() => {
  if (logged === undefined) delete process.env.BATCH_AGENT_LOG;
  else process.env.BATCH_AGENT_LOG = logged;
});

/** A repository, its agents' log, and a parent app whose mock model calls `ralph_batch` with `args`, then answers. */
function parentApp(
  args: unknown,
  turns: ModelTurn[] = [callTools({ toolName: 'ralph_batch', input: args }), answer('Done.')],
) {
  const { repo, env, agentLines } = batchScene([]);
  process.env.BATCH_AGENT_LOG = env.BATCH_AGENT_LOG;
  const { pidsOf, alive } = agentPids(agentLines);
  const model = scriptedModel(turns);
  const tools = {
    ralph_batch: ralphBatchAiSdkTool({ cwd: repo, agentCommand: EDIT_AGENT, graceMs: 200, maxRounds: 5 }),
  };
  return { repo, model, tools, pidsOf, alive };
}

describe('ralph_batch as an AI SDK tool', () => {
  it('runs the batch with the app’s agent; the model gets the native result text, the host the outcome', async () => {
    const app = parentApp({
      tasks: [
        { id: 'a', objective: 'write a.txt a' },
        { id: 'b', objective: 'write b.txt b', after: ['a'] },
      ],
    });
    const result = await generateText({
      model: app.model,
      prompt: 'go',
      tools: app.tools,
      stopWhen: stepCountIs(3),
    });

    expect(app.model.doGenerateCalls[0]?.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'ralph_batch', inputSchema: batchArgsJsonSchema }),
    ]);
    const outcome = result.steps[0]?.toolResults[0]?.output as BatchOutcome;
    expect(outcome.tasks.map((task) => [task.id, task.status])).toEqual([
      ['a', 'landed'],
      ['b', 'landed'],
    ]);
    expect(gitIn(app.repo, 'show', `${outcome.target}:b.txt`)).toBe('b');
    expect(toolResultsIn(app.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph_batch', output: { type: 'text', value: batchResultText(outcome) } },
    ]);
    expect(batchResultText(outcome)).toContain(`- b: landed (commit ${outcome.tasks[1]?.commit}`);
  }, 60_000);

  it('a refused call reaches the model as the ralph tool’s message, and starts nothing', async () => {
    const app = parentApp({ tasks: [{ id: 'a', objective: '' }] });
    const before = gitIn(app.repo, 'branch', '--format=%(refname:short)');
    const result = await generateText({
      model: app.model,
      prompt: 'go',
      tools: app.tools,
      stopWhen: stepCountIs(3),
    });

    const message = `ralph_batch task "a": ${OBJECTIVE_EMPTY}`;
    expect(toolResultsIn(app.model.doGenerateCalls[1]!)).toEqual([
      { toolName: 'ralph_batch', output: { type: 'error-text', value: message } },
    ]);
    const errors = result.steps[0]!.content.flatMap((part) =>
      part.type === 'tool-error' ? [part.error] : [],
    );
    expect(errors[0]).toBeInstanceOf(RalphError);
    expect(errors[0]).toMatchObject({ code: 'refused', message });
    expect(gitIn(app.repo, 'branch', '--format=%(refname:short)')).toBe(before);
    expect(app.pidsOf('start')).toEqual([]);
  });

  it('aborting the host’s call cancels the batch; the tool settles once every agent stopped', async () => {
    const input = { tasks: [{ id: 'a', objective: 'write a.txt a\nhang' }] };
    const app = parentApp(input, [callTools({ toolName: 'ralph_batch', input }), waitForAbort]);
    const controller = new AbortController();
    let finished: (goneThen: boolean[]) => void = () => {};
    const toolSettled = new Promise<boolean[]>((resolve) => {
      finished = resolve;
    });
    let agents: number[] = [];
    const call = generateText({
      model: app.model,
      prompt: 'go',
      tools: app.tools,
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
      experimental_onToolCallFinish: () => finished(agents.map(isGone)),
    });
    call.catch(() => {});
    agents = await waitUntil(() => app.alive().length === 1 && app.alive(), 'the agent to start');
    controller.abort();

    expect(await toolSettled).toEqual([true]);
  }, 60_000);
});
