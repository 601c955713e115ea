import { randomBytes } from 'node:crypto';
import { idProblem } from '../contract/batch-tasks.js';

/**
 * A new batch id: the time it started and a random part, e.g. `20261201-1522-a1b2c3` (no dot: a fleet task's run id
 * is `<batch-id>.<task-id>`). It goes through the rule every id read back goes through, so no later change of its
 * form can make a branch name git refuses.
 */
export function newBatchId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13);
  const id = `${stamp}-${randomBytes(3).toString('hex')}`;
  const problem = idProblem(id);
  if (problem !== null) throw new Error(`ralph made a batch id it cannot use: ${problem}`);
  return id;
}
