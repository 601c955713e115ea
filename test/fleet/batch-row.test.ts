import { describe, expect, it } from 'vitest';
import { batchTaskRunId, type FleetBatchTask } from '../../src/fleet/batch-input.js';
import { afterProblem, batchRowProblem } from '../../src/fleet/batch-row.js';

const BATCH = '20261201-1200-abcdef';
const task = (fields: Partial<FleetBatchTask> = {}): FleetBatchTask => {
  const taskId = fields.taskId ?? 'one';
  return {
    batchId: BATCH,
    taskId,
    repo: 'file:///srv/repo.git',
    target: 'main',
    branch: `ralph/${fields.batchId ?? BATCH}/${taskId}`,
    base: 'a'.repeat(40),
    after: [],
    verify: null,
    verifyTimeoutMs: 60_000,
    ...fields,
  };
};
const problemOf = (row: FleetBatchTask, runId = batchTaskRunId(row.batchId, row.taskId)) =>
  batchRowProblem(row, runId, batchTaskRunId);

describe("a batch task's row, as the worker checks it", () => {
  it('takes a row as ralph submit --batch writes it', async () => {
    expect(await problemOf(task())).toBeNull();
    expect(await problemOf(task({ target: 'release/2.x', base: 'b'.repeat(64) }))).toBeNull();
  });

  it('refuses ids a tasks file may not give, a batch id with a dot, and a run id its ids do not make', async () => {
    expect(await problemOf(task({ batchId: 'a.b' }))).toBe(
      'its batch id "a.b" is refused: must not contain "."',
    );
    expect(await problemOf(task({ batchId: '../x' }))).toMatch(
      /^its batch id "\.\.\/x" is refused: must be 1-64/,
    );
    expect(await problemOf(task({ taskId: 'A' }))).toMatch(/^its task id "A" is refused: must be 1-64/);
    expect(await problemOf(task({ taskId: 7 as unknown as string }))).toMatch(/^its task id 7 is refused: /);
    expect(await problemOf(task(), `${BATCH}.other`)).toBe(
      `its workflow id "${BATCH}.other" is not the one its ids make, ${BATCH}.one`,
    );
  });

  it('refuses a URL, target, branch, base or after that is not what submit writes', async () => {
    expect(await problemOf(task({ repo: '-oProxyCommand=x' }))).toMatch(
      /^its repository URL "-oProxyCommand=x"/,
    );
    for (const target of ['-f', 'a..b', 'main:x', 'x.lock', ''])
      expect(await problemOf(task({ target }))).toBe(
        `its target ${JSON.stringify(target)} is refused: it is no branch name`,
      );
    expect(await problemOf(task({ branch: 'main' }))).toBe(
      `its branch "main" is refused: a task's branch is ralph/${BATCH}/one, where its agents' work waits for the merge queue`,
    );
    expect(await problemOf(task({ base: 'HEAD' }))).toBe('its base "HEAD" is refused: it is no commit id');
    expect(await problemOf(task({ after: 'x' as unknown as string[] }))).toBe(
      'its after "x" is refused: it is not a list of task ids',
    );
  });

  it("checks after as submit checks a tasks file's, over the tasks this one waits for", () => {
    expect(afterProblem(task({ after: ['one'] }), [])).toBe('task "one" comes after itself');
    expect(afterProblem(task({ after: ['ghost'] }), [])).toBe(
      'task "one" comes after "ghost", which no task is',
    );
    const rows = [
      { taskId: 'two', after: ['three'] },
      { taskId: 'three', after: ['one'] },
    ];
    expect(afterProblem(task({ after: ['two'] }), rows)).toBe(
      'tasks come after each other in a cycle: one → two → three → one',
    );
    // A bad task this one does not wait for is not its concern.
    expect(
      afterProblem(task({ after: ['two'] }), [
        { taskId: 'two', after: [] },
        { taskId: 'x', after: ['x'] },
      ]),
    ).toBeNull();
  });
});
