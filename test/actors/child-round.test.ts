import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { machineInputOf } from '../../src/actors/engine.js';
import {
  createChildRoundActors,
  createScriptedProvider,
  normalizeConfig,
  type RalphOutput,
  ralphMachine,
} from '../../src/index.js';
import { agent } from '../support/tool.js';

describe('a snapshot restored in the middle of a round', () => {
  it('does not re-attach its child, and says so instead of failing obscurely', async () => {
    const provider = createScriptedProvider([{ hang: true }]);
    const config = normalizeConfig({ subagentProvider: provider.name });
    const input = machineInputOf({ args: { objective: 'x' }, agent, config, provider }, 'run-1', 256);
    const machine = () =>
      ralphMachine.provide({ actors: createChildRoundActors(provider, config.terminationGraceMs) });

    const first = createActor(machine(), { input });
    const childStarted = new Promise<void>((resolve) => first.on('child-started', () => resolve()));
    first.start();
    await childStarted;
    const persisted = first.getPersistedSnapshot();
    expect(persisted).toMatchObject({ value: { running: { round: 'awaitingReport' } } });
    // A snapshot is plain data: it survives being written out and read back.
    const restoredSnapshot = JSON.parse(JSON.stringify(persisted));
    first.stop();

    const restored = createActor(machine(), { input, snapshot: restoredSnapshot });
    restored.start();
    const output = (await toPromise(restored)) as RalphOutput;
    expect(output).toEqual({
      ok: false,
      failure: {
        code: 'child-failed',
        message:
          'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
        round: 1,
        lastHandoff: null,
        detail:
          'round 1 has no child in this process: a run restored from a snapshot taken in the middle of a round ' +
          'does not re-attach its child (resume the run at a round boundary instead: the resume option of the engine, or ralph resume)',
      },
    });
    expect(provider.running).toBe(0);
  });
});
