import { describe, expect, it } from 'vitest';
import {
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  MAX_OBJECTIVE_CHARS,
  OBJECTIVE_EMPTY,
  objectiveTooLong,
} from '../../src/index.js';

// The objective's size is bounded in the tool itself, so every host (MCP, AI SDK, CLI, a library's own) refuses an
// objective too long before anything starts, and the objective's own checks still come first.

const complete = {
  report: { status: 'complete', summary: 'done', evidence: ['checked'], nextSteps: [], blocker: null },
};

function tool() {
  const provider = createScriptedProvider([complete]);
  const providers = createProviderRegistry();
  providers.register(provider);
  return { provider, tool: createRalphTool({ subagentProvider: provider.name }, { providers }) };
}

const agent = { id: 'test', cwd: process.cwd() };

describe(`an objective over ${MAX_OBJECTIVE_CHARS} characters`, () => {
  it('is refused before any child starts, with a message naming its length and the limit', async () => {
    const { tool: ralph, provider } = tool();
    const objective = 'x'.repeat(MAX_OBJECTIVE_CHARS + 1);
    await expect(ralph.execute({ objective, maxRounds: 0 }, { agent })).rejects.toMatchObject({
      code: 'refused',
      message: objectiveTooLong(MAX_OBJECTIVE_CHARS + 1),
    });
    expect(provider.requests).toEqual([]);
    expect(objectiveTooLong(MAX_OBJECTIVE_CHARS + 1)).toBe(
      'Ralph objective is 1048577 characters long; at most 1048576 are accepted',
    );
  });

  it('leaves an objective of exactly the limit, and an empty one, to the checks they always had', async () => {
    const { tool: ralph, provider } = tool();
    const envelope = await ralph.execute({ objective: 'y'.repeat(MAX_OBJECTIVE_CHARS) }, { agent });
    expect(envelope.result.status).toBe('complete');
    expect(provider.requests).toHaveLength(1);
    await expect(ralph.execute({ objective: ' ' }, { agent })).rejects.toMatchObject({
      message: OBJECTIVE_EMPTY,
    });
  });
});
