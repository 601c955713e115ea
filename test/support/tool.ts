import {
  type AgentRef,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  type RalphConfigInput,
  type RalphEngine,
  RalphError,
  type ScriptedProviderOptions,
  type ScriptedStep,
} from '../../src/index.js';

/** The calling agent every test call comes from. */
export const agent: AgentRef = { id: 'parent-agent', cwd: '/tmp/ralph-workspace' };

/** A ralph tool backed by a scripted provider registered as "scripted". */
export function scriptedTool(
  steps: ScriptedStep[],
  config: Partial<RalphConfigInput> = {},
  options: ScriptedProviderOptions & { engine?: RalphEngine } = {},
) {
  const providers = createProviderRegistry();
  const provider = createScriptedProvider(steps, options);
  providers.register(provider);
  const tool = createRalphTool(
    { subagentProvider: provider.name, ...config },
    options.engine === undefined ? { providers } : { providers, engine: options.engine },
  );
  return { tool, provider, providers };
}

/** Runs `promise` and returns the RalphError it rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<RalphError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RalphError) return error;
    throw error;
  }
  throw new Error('expected the call to reject with a RalphError, but it resolved');
}
