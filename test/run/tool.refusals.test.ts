import { describe, expect, it } from 'vitest';
import {
  createProviderRegistry,
  createRalphEngine,
  createRalphTool,
  createScriptedProvider,
  RalphError,
} from '../../src/index.js';
import { completeReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

const complete = { report: completeReport() };

describe('the call is checked before any round starts, and a refused call starts nothing', () => {
  it.each([
    ['a missing objective', {}],
    ['an empty objective', { objective: '' }],
    ['an objective of only white space', { objective: ' \n\t ' }],
    ['an objective that is not a string', { objective: 42 }],
    ['arguments that are not an object', 'fix the bug'],
    ['null arguments', null],
  ])('refuses %s: Ralph objective must be a non-empty string', async (_, args) => {
    const { tool, provider } = scriptedTool([complete]);
    const error = await rejection(tool.execute(args, { agent }));
    expect(error.message).toBe('Ralph objective must be a non-empty string');
    expect(error.code).toBe('refused');
    expect(provider.requests).toHaveLength(0);
  });

  it.each([
    ['zero', 0],
    ['a negative number', -3],
    ['a fraction', 2.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a number past the safe integers', 2 ** 53],
    ['a numeric string', '3'],
    ['a boolean', true],
  ])(
    'refuses a round cap that is %s: Ralph maxRounds must be a positive safe integer',
    async (_, maxRounds) => {
      const { tool, provider } = scriptedTool([complete]);
      const error = await rejection(tool.execute({ objective: 'ship it', maxRounds }, { agent }));
      expect(error.message).toBe('Ralph maxRounds must be a positive safe integer');
      expect(error.code).toBe('refused');
      expect(provider.requests).toHaveLength(0);
    },
  );

  it('treats maxRounds: null as absent (strict structured-output models send null)', async () => {
    const { tool } = scriptedTool([complete]);
    const envelope = await tool.execute({ objective: 'ship it', maxRounds: null }, { agent });
    expect(envelope.result.status).toBe('complete');
  });

  it('refuses a round cap past the default ceiling of 256', async () => {
    const { tool, provider } = scriptedTool([complete]);
    const error = await rejection(tool.execute({ objective: 'ship it', maxRounds: 257 }, { agent }));
    expect(error.message).toBe('Ralph maxRounds 257 exceeds the deployment ceiling 256');
    expect(provider.requests).toHaveLength(0);
  });

  it('accepts exactly the ceiling', async () => {
    const { tool } = scriptedTool([complete], { maxRounds: 5 });
    await expect(tool.execute({ objective: 'ship it', maxRounds: 5 }, { agent })).resolves.toMatchObject({
      result: { status: 'complete' },
    });
  });

  it("uses the deployment's maxRounds as the ceiling of a call", async () => {
    const { tool, provider } = scriptedTool([complete], { maxRounds: 10 });
    const error = await rejection(tool.execute({ objective: 'ship it', maxRounds: 11 }, { agent }));
    expect(error.message).toBe('Ralph maxRounds 11 exceeds the deployment ceiling 10');
    expect(provider.requests).toHaveLength(0);
  });

  it("refuses, where the tool is created, a config whose maxRounds is over the engine's maxTotalAgents", () => {
    const engine = createRalphEngine({ maxTotalAgents: 10 });
    const providers = createProviderRegistry();
    providers.register(createScriptedProvider([complete]));
    const create = (maxRounds?: number) =>
      createRalphTool(
        { subagentProvider: 'scripted', ...(maxRounds === undefined ? {} : { maxRounds }) },
        { providers, engine },
      );
    for (const [maxRounds, shown] of [
      [undefined, 256],
      [11, 11],
    ] as const) {
      let thrown: unknown;
      try {
        create(maxRounds);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RalphError);
      expect((thrown as RalphError).code).toBe('refused');
      expect((thrown as RalphError).message).toBe(
        `Ralph config is invalid: maxRounds ${shown} (the default and ceiling of a call's rounds) exceeds the ` +
          "engine's maxTotalAgents 10, so a call that sends no maxRounds could never run; set maxRounds to at " +
          'most 10 in the config, or create the engine with maxTotalAgents of at least ' +
          `${shown}`,
      );
    }
    expect(() => create(10)).not.toThrow();
  });

  it("runs within the engine's ceiling once the config fits it", async () => {
    const engine = createRalphEngine({ maxTotalAgents: 4 });
    const { tool, provider } = scriptedTool([complete], { maxRounds: 4 }, { engine });
    await expect(tool.execute({ objective: 'ship it' }, { agent })).resolves.toMatchObject({
      agentsStarted: 1,
    });
    const error = await rejection(tool.execute({ objective: 'ship it', maxRounds: 5 }, { agent }));
    expect(error.message).toBe('Ralph maxRounds 5 exceeds the deployment ceiling 4');
    expect(provider.requests).toHaveLength(1);
  });

  it('refuses a call with no calling agent', async () => {
    const { tool, provider } = scriptedTool([complete]);
    for (const exec of [undefined, {}, { agent: undefined }]) {
      const error = await rejection(tool.execute({ objective: 'ship it' }, exec));
      expect(error.message).toBe('Ralph tool requires a calling agent (exec.agent was undefined)');
    }
    expect(provider.requests).toHaveLength(0);
  });
});

describe('the configured provider is checked the same way', () => {
  it('must be registered', async () => {
    const tool = createRalphTool({ subagentProvider: 'claude' }, { providers: createProviderRegistry() });
    const error = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(error.message).toBe('Ralph subagent provider "claude" is not registered');
    expect(error.code).toBe('refused');
  });

  it('must support structured output', async () => {
    const { tool, provider } = scriptedTool([complete], {}, { capabilities: { structuredOutput: false } });
    const error = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(error.message).toBe('Ralph subagent provider "scripted" does not support structured output');
    expect(provider.requests).toHaveLength(0);
  });

  it('must start fresh rather than inherit the parent context', async () => {
    const { tool, provider } = scriptedTool(
      [complete],
      {},
      { capabilities: { inheritsParentContext: true } },
    );
    const error = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(error.message).toBe(
      'Ralph subagent provider "scripted" inherits parent context; Ralph requires a fresh provider',
    );
    expect(provider.requests).toHaveLength(0);
  });

  it('is resolved from the registry immediately before each call, never cached', async () => {
    const providers = createProviderRegistry();
    const tool = createRalphTool({ subagentProvider: 'late' }, { providers });
    const first = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(first.message).toBe('Ralph subagent provider "late" is not registered');

    const unregister = providers.register(createScriptedProvider([complete], { name: 'late' }));
    await expect(tool.execute({ objective: 'ship it' }, { agent })).resolves.toMatchObject({
      result: { status: 'complete' },
    });

    unregister();
    const after = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(after.message).toBe('Ralph subagent provider "late" is not registered');

    providers.register(
      createScriptedProvider([complete], { name: 'late', capabilities: { structuredOutput: false } }),
    );
    const swapped = await rejection(tool.execute({ objective: 'ship it' }, { agent }));
    expect(swapped.message).toBe('Ralph subagent provider "late" does not support structured output');
  });

  it('cannot be overridden by the call', async () => {
    const { tool, provider } = scriptedTool([complete]);
    const other = createScriptedProvider([complete], { name: 'other' });
    await tool.execute({ objective: 'ship it', subagentProvider: 'other' }, { agent });
    expect(provider.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  });
});

describe('when several checks fail, the first in order gives the message', () => {
  const noProviders = () =>
    createRalphTool({ subagentProvider: 'missing', maxRounds: 3 }, { providers: createProviderRegistry() });

  it.each([
    [
      'objective before maxRounds',
      { objective: '', maxRounds: 0 },
      agent,
      'Ralph objective must be a non-empty string',
    ],
    [
      'maxRounds before the ceiling and the agent',
      { objective: 'x', maxRounds: -1 },
      undefined,
      'Ralph maxRounds must be a positive safe integer',
    ],
    [
      'the ceiling before the agent',
      { objective: 'x', maxRounds: 4 },
      undefined,
      'Ralph maxRounds 4 exceeds the deployment ceiling 3',
    ],
    [
      'the agent before the provider',
      { objective: 'x' },
      undefined,
      'Ralph tool requires a calling agent (exec.agent was undefined)',
    ],
    ['then the provider', { objective: 'x' }, agent, 'Ralph subagent provider "missing" is not registered'],
  ])('%s', async (_, args, callingAgent, message) => {
    const error = await rejection(
      noProviders().execute(args, callingAgent === undefined ? {} : { agent: callingAgent }),
    );
    expect(error.message).toBe(message);
  });

  it('structured output before freshness', async () => {
    const { tool } = scriptedTool(
      [complete],
      {},
      {
        capabilities: { structuredOutput: false, inheritsParentContext: true },
      },
    );
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe('Ralph subagent provider "scripted" does not support structured output');
  });
});
