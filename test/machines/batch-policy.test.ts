import { describe, expect, test } from 'vitest';
import {
  isSettled,
  nextReadyTask,
  runActorId,
  runningCount,
  unreachableTask,
  updateTask,
} from '../../src/machines/batch-policy.js';
import type { TaskEntry, TaskStatus } from '../../src/machines/batch-types.js';

/** A task of a batch: waiting, after nothing, unless said otherwise. */
const task = (id: string, status: TaskStatus = 'waiting', after: string[] = []): TaskEntry => ({
  id,
  after,
  status,
  note: null,
  conflicts: [],
});

describe('which task starts next', () => {
  test('the first waiting task whose after tasks all landed, in the order of the tasks', () => {
    const tasks = [task('a', 'running'), task('b', 'waiting', ['a']), task('c'), task('d')];
    expect(nextReadyTask(tasks)?.id).toBe('c');
    expect(nextReadyTask(updateTask(tasks, 'a', { status: 'landed' }))?.id).toBe('b');
  });

  test('a task after one the batch does not have never starts, and asking does not fail', () => {
    expect(nextReadyTask([task('b', 'waiting', ['ghost'])])).toBeUndefined();
  });
});

describe('which task can never start', () => {
  test('a waiting task after one that settled without landing', () => {
    const tasks = [task('a', 'needs-review'), task('b', 'waiting', ['a'])];
    expect(unreachableTask(tasks)?.id).toBe('b');
  });

  test('the task it comes after is the one it names, not another that did not land', () => {
    const tasks = [task('x', 'failed'), task('a', 'landed'), task('b', 'waiting', ['a'])];
    expect(unreachableTask(tasks)).toBeUndefined();
  });

  test('a task after one still running, or after one the batch does not have, is not given up on', () => {
    expect(unreachableTask([task('a', 'running'), task('b', 'waiting', ['a'])])).toBeUndefined();
    expect(unreachableTask([task('b', 'waiting', ['ghost'])])).toBeUndefined();
  });
});

describe('the bookkeeping of a batch', () => {
  test('updating a task changes that task alone, and leaves the list it was given as it was', () => {
    const tasks = [task('a'), task('b'), task('c')];
    const updated = updateTask(tasks, 'b', { status: 'running', note: 'started' });
    expect(updated).toEqual([task('a'), { ...task('b', 'running'), note: 'started' }, task('c')]);
    expect(tasks[1]?.status).toBe('waiting');
  });

  test('settled tasks are the landed, needs-review, failed, skipped and cancelled ones', () => {
    const statuses: TaskStatus[] = [
      'waiting',
      'running',
      'queued',
      'landed',
      'needs-review',
      'failed',
      'skipped',
    ];
    expect(statuses.concat('cancelled').filter((status) => isSettled(task('t', status)))).toEqual([
      'landed',
      'needs-review',
      'failed',
      'skipped',
      'cancelled',
    ]);
  });

  test('running loops are counted, and each has its own child id', () => {
    expect(runningCount([task('a', 'running'), task('b', 'queued'), task('c', 'running')])).toBe(2);
    expect(runActorId('a')).toBe('run-a');
  });
});
