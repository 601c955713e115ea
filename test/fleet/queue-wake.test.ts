import { describe, expect, it } from 'vitest';
import { startRalphWorker } from '../../src/fleet/worker.js';
import { createRalphFleet } from '../../src/fleet.js';
import { workerProviderFactory } from '../../src/hosts/cli/worker-agents.js';
import { AGENT_COMMAND, useFleetScene } from './harness.js';

const scene = useFleetScene();
const { databaseFor, workspace, fleets } = scene;

describe('the queue wake', () => {
  it('a run submitted to an idle worker whose queue poll is an hour away starts and completes at once', async () => {
    const url = databaseFor('wake');
    const notices: string[] = [];
    // An hour between idle polls: only the enqueue's notification can start the run within the test's life.
    const worker = await startRalphWorker({
      databaseUrl: url,
      workerId: 'wake',
      providerFor: workerProviderFactory({ allowAgentCommand: true }),
      idlePollMs: 3_600_000,
      onNotice: (line) => notices.push(line),
    });
    try {
      expect(notices.filter((line) => line.includes('do not wake'))).toEqual([]);
      const fleet = await createRalphFleet({ databaseUrl: url });
      fleets.push(fleet);
      for (const n of [1, 2]) {
        const ws = await workspace();
        const runId = await fleet.submit({
          objective: `Count to five (${n})`,
          agent: { agentCommand: AGENT_COMMAND },
          cwd: ws.dir,
        });
        const status = await fleet.wait(runId, { pollMs: 100 });
        expect(status.state).toBe('complete');
        expect(status.workerId).toBe('wake');
        expect(ws.startsOf(1)).toHaveLength(1);
      }
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
