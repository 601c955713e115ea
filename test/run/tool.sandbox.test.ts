import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createProviderRegistry,
  createRalphTool,
  exampleAgentProvider,
  type RalphConfigInput,
  sandboxBwrapMissing,
} from '../../src/index.js';
import { privateHomeScene } from '../support/sandbox-scene.js';
import { rejection } from '../support/tool.js';

/** The library's tool over the example agent, whose processes see `home` as the user's home. */
function exampleTool(home: string, config: Partial<RalphConfigInput>, env: NodeJS.ProcessEnv = {}) {
  const providers = createProviderRegistry();
  providers.register(exampleAgentProvider({ baseEnv: { ...process.env, HOME: home, ...env } }));
  return createRalphTool({ subagentProvider: 'example', ...config }, { providers });
}

describe('createRalphTool({ sandbox })', () => {
  it('runs the example agent in the sandbox: it cannot see the planted key, and the call completes', async () => {
    const scene = privateHomeScene();
    const tool = exampleTool(scene.home, { sandbox: { network: 'none' } });

    const envelope = await tool.execute(
      { objective: scene.objective, maxRounds: 3 },
      { agent: { id: 'library', cwd: scene.workspace } },
    );

    expect(envelope.result.status).toBe('complete');
    expect(readFileSync(join(scene.workspace, 'seen.txt'), 'utf8')).toBe('checked\n');
  }, 60_000);

  it('takes `sandbox: {}`, every setting its default (the network kept)', () => {
    const scene = privateHomeScene();

    expect(exampleTool(scene.home, { sandbox: {} }).config.sandbox).toEqual({
      network: 'keep',
      env: [],
      hide: [],
    });
  });

  it('without a sandbox the same agent sees the key, and the call ends blocked', async () => {
    const scene = privateHomeScene();
    const tool = exampleTool(scene.home, {});

    const envelope = await tool.execute(
      { objective: scene.objective, maxRounds: 3 },
      { agent: { id: 'library', cwd: scene.workspace } },
    );

    expect(envelope.result.status).toBe('blocked');
  }, 60_000);
});

describe('createRalphTool({ sandbox }) where bubblewrap cannot run', () => {
  it('refuses the call before anything starts', async () => {
    const scene = privateHomeScene();
    const tool = exampleTool(scene.home, { sandbox: {} });
    const before = process.env.RALPH_BWRAP;
    process.env.RALPH_BWRAP = '/nonexistent/bwrap-for-the-library';
    try {
      const error = await rejection(
        tool.execute({ objective: scene.objective }, { agent: { id: 'library', cwd: scene.workspace } }),
      );
      expect(error.code).toBe('refused');
      expect(error.message).toBe(sandboxBwrapMissing('/nonexistent/bwrap-for-the-library'));
    } finally {
      if (before === undefined) delete process.env.RALPH_BWRAP;
      else process.env.RALPH_BWRAP = before;
    }
  });
});
