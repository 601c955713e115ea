import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isRalphError } from '../../src/contract/errors.js';
import type { FleetBatchSubmission } from '../../src/fleet/batch-client.js';
import { createRalphFleet } from '../../src/fleet.js';
import { useFleetScene } from './harness.js';

const scene = useFleetScene();

/** A one-task batch as the library takes it, with `batch` fields changed by `change`. */
function submission(change: Partial<FleetBatchSubmission[number]['batch']>): FleetBatchSubmission {
  const batch = {
    batchId: '20261201-1522-a1b2c3',
    taskId: 'one',
    repo: 'https://example.org/team/app.git',
    target: 'ralph/batch-20261201-1522-a1b2c3',
    branch: 'ralph/20261201-1522-a1b2c3/one',
    base: '0'.repeat(40),
    after: [],
    verify: null,
    verifyTimeoutMs: 60_000,
    ...change,
  };
  return [{ objective: 'write one.txt', agent: { kind: 'example' }, cwd: tmpdir(), batch }];
}

describe('fleet.submitBatch, the library', () => {
  it('refuses a task whose repository URL carries a credential or whose ids git refuses, storing nothing', async () => {
    const fleet = await createRalphFleet({ databaseUrl: scene.databaseFor('submission') });
    scene.fleets.push(fleet);
    const refusals = [
      [
        { repo: 'https://user:PASSWORD@example.org/team/app.git' },
        /its repository "https:\/\/user:\*\*\*@example\.org/,
      ],
      [{ repo: 'https://PASSWORD@example.org/team/app.git' }, /it carries a credential/],
      [{ taskId: 'a..b' }, /its task id "a\.\.b" cannot name a git branch: it contains "\.\."/],
      [{ batchId: '../x' }, /its batch id must be 1-64 of/],
    ] as const;
    for (const [change, message] of refusals) {
      const refused = await fleet.submitBatch(submission(change)).catch((error: unknown) => error);
      expect(isRalphError(refused) && refused.code, String(refused)).toBe('refused');
      expect(String((refused as Error).message)).toMatch(message);
      expect(String((refused as Error).message)).not.toContain('PASSWORD');
    }
    expect(await fleet.list()).toEqual([]);
    expect(await fleet.submitBatch(submission({}))).toEqual(['20261201-1522-a1b2c3.one']);
  }, 60_000);
});
