import { describe, expect, it } from 'vitest';
import { createRalphBatchTool, tooManyBatchTasks } from '../../src/hosts/batch-tool.js';

// Each refusal is thrown by the tool's own checks, before runBatch is reached: the cwd names no repository, so a call
// that got past them would fail differently.
const tool = createRalphBatchTool({ cwd: '/nonexistent/ralph-batch-tool', agentCommand: 'true' });
const task = { id: 'a', objective: 'Do one thing' };

async function refusalOf(args: unknown): Promise<unknown> {
  try {
    await tool.execute(args);
  } catch (error) {
    return error;
  }
  throw new Error('the call was not refused');
}

describe('ralph_batch refuses a call before anything starts', () => {
  it.each([0, 65, 2.5, '3', -1])('a parallel of %j: a whole number from 1 to 64', async (parallel) => {
    expect(await refusalOf({ tasks: [task], parallel })).toMatchObject({
      code: 'refused',
      message: `ralph_batch parallel must be a whole number from 1 to 64 (got ${JSON.stringify(parallel)})`,
    });
  });

  it('more than 64 tasks, naming how many came', async () => {
    const tasks = Array.from({ length: 65 }, (_, n) => ({ id: `t${n}`, objective: 'Do one thing' }));
    expect(await refusalOf({ tasks })).toMatchObject({ code: 'refused', message: tooManyBatchTasks(65) });
  });

  it('a task that names a command of its own', async () => {
    expect(await refusalOf({ tasks: [{ ...task, verify: 'rm -rf /' }] })).toMatchObject({
      code: 'refused',
      message: 'ralph_batch task "a": only id, objective, after and maxRounds are taken (got verify)',
    });
  });
});
