import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aiSdkProvider } from '../../src/ai-sdk.js';
import { providerCannotSandbox, sandboxBwrapMissing } from '../../src/contract/sandbox-messages.js';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  type RalphReport,
  type SubagentProvider,
} from '../../src/index.js';
import { scriptedModel } from '../providers/ai-sdk-mock-model.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { NO_SANDBOX_PLATFORM } from '../support/sandbox.js';
import { rejection } from '../support/tool.js';

const s = useScratch();

const complete: RalphReport = {
  status: 'complete',
  summary: 'done',
  evidence: ['checked'],
  nextSteps: [],
  blocker: null,
};

/** A command agent (it can run in the sandbox) that logs its pid when it starts. */
const commandAgent = () =>
  commandProvider({
    command: agentCommand('report-file.mjs'),
    baseEnv: cleanEnv(),
    env: { FIXTURE_PID_LOG: s.pidLog },
  });

/** A tool over `worker` (and `judge` as its evaluator, when given) whose deployment asks for the sandbox. */
function sandboxedTool(worker: SubagentProvider, judge?: SubagentProvider) {
  const providers = createProviderRegistry();
  providers.register(worker);
  if (judge !== undefined) providers.register(judge);
  return createRalphTool(
    {
      subagentProvider: worker.name,
      sandbox: { network: 'none' },
      ...(judge === undefined ? {} : { evaluator: { provider: judge.name } }),
    },
    { providers },
  );
}

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('createRalphTool with a sandbox', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('refuses a provider that cannot start its children in the sandbox, starting none', async () => {
    const worker = createScriptedProvider([{ report: complete }]);

    const error = await rejection(
      sandboxedTool(worker).execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } }),
    );

    expect(error).toMatchObject({ code: 'refused', message: providerCannotSandbox('scripted', 'subagent') });
    expect(worker.requests).toEqual([]);
  });

  it('refuses the AI SDK provider, which runs no process a sandbox could hold, never calling the model', async () => {
    const model = scriptedModel([]);

    const error = await rejection(
      sandboxedTool(aiSdkProvider({ model })).execute(
        { objective: 'x' },
        { agent: { id: 'p', cwd: s.workspace } },
      ),
    );

    expect(error.message).toBe(providerCannotSandbox('ai-sdk', 'subagent'));
    expect(model.doGenerateCalls).toEqual([]);
  });

  it('refuses an evaluator that cannot, though the worker can: no worker starts either', async () => {
    const judge = createScriptedProvider([{ report: complete }], { name: 'judge' });

    const error = await rejection(
      sandboxedTool(commandAgent(), judge).execute(
        { objective: 'x' },
        { agent: { id: 'p', cwd: s.workspace } },
      ),
    );

    expect(error).toMatchObject({ code: 'refused', message: providerCannotSandbox('judge', 'evaluator') });
    expect(await s.pids()).toEqual([]);
    expect(judge.requests).toEqual([]);
  });

  it('refuses where bubblewrap is missing, before it looks at the providers', async () => {
    const missing = join(s.logs, 'no-bwrap-here');
    vi.stubEnv('RALPH_BWRAP', missing);

    const error = await rejection(
      sandboxedTool(commandAgent()).execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } }),
    );

    expect(error).toMatchObject({ code: 'refused', message: sandboxBwrapMissing(missing) });
    expect(await s.pids()).toEqual([]);
  });
});
