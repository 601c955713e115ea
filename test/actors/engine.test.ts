import { describe, expect, it } from 'vitest';
import { createRalphEngine, createScriptedProvider, normalizeConfig } from '../../src/index.js';
import { completeReport, continueReport } from '../support/reports.js';
import { agent, scriptedTool } from '../support/tool.js';

describe('the engine', () => {
  it.each([0, 257, 1.5])('refuses a ceiling of %s', (maxTotalAgents) => {
    expect(() => createRalphEngine({ maxTotalAgents })).toThrow(RangeError);
  });

  it('runs 50 concurrent loops independently', async () => {
    // One provider per run so that each plays its own three-step script.
    const runs = Array.from({ length: 50 }, (_, i) => {
      const own = scriptedTool(
        [
          { report: continueReport(`run ${i}`), delayMs: i % 7 },
          { report: completeReport(`run ${i}`), delayMs: 3 },
        ],
        { maxRounds: 5 },
      );
      return own.tool
        .execute({ objective: `objective ${i}` }, { agent })
        .then((envelope) => ({ i, envelope, own }));
    });
    const settled = await Promise.all(runs);
    expect(new Set(settled.map((s) => s.envelope.runId)).size).toBe(50);
    for (const { i, envelope, own } of settled) {
      expect(envelope.result).toMatchObject({
        status: 'complete',
        rounds: 2,
        report: { summary: `run ${i}` },
      });
      expect(
        own.provider.requests.every((r) => r.objective === `objective ${i}` && r.runId === envelope.runId),
      ).toBe(true);
    }
  });

  it('exposes the running actor and lets a host cancel a run directly', async () => {
    const engine = createRalphEngine();
    const provider = createScriptedProvider([{ hang: true }]);
    const run = engine.start({
      args: { objective: 'x' },
      agent,
      config: normalizeConfig({ subagentProvider: 'scripted' }),
      provider,
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(run.actor?.getSnapshot().value).toBe('awaitingReport');
    run.cancel();
    await expect(run.result).rejects.toThrow('Ralph workflow was cancelled');
    expect(run.actor?.getSnapshot().value).toBe('cancelled');
    expect(provider.running).toBe(0);
    run.dispose();
  });
});
