import type { TaskEntry, TaskStatus } from './batch-types.js';

/** Statuses a task does not leave. */
const SETTLED: ReadonlySet<TaskStatus> = new Set([
  'landed',
  'needs-review',
  'failed',
  'skipped',
  'cancelled',
]);

/** True when a task has ended one way or another. */
export const isSettled = (task: TaskEntry): boolean => SETTLED.has(task.status);

/** How many tasks have a loop going that holds a parallel slot (one waiting for a person's answer holds none). */
export const runningCount = (tasks: readonly TaskEntry[]): number =>
  tasks.filter((task) => task.status === 'running').length;

/** Statuses of a task whose loop (its run actor) is alive: running, or waiting for a person's answer or a slot. */
const LIVE: ReadonlySet<TaskStatus> = new Set(['running', 'awaiting-answer', 'answered']);

/** True when a task's loop is alive, slot or not: what a cancel must stop and wait for. */
export const hasLiveLoop = (task: TaskEntry): boolean => LIVE.has(task.status);

/** How many tasks have a loop alive, holding a slot or not. */
export const liveLoopCount = (tasks: readonly TaskEntry[]): number => tasks.filter(hasLiveLoop).length;

/** The first task whose loop got its answer and waits for a parallel slot: it goes before any task not started. */
export const nextAnsweredTask = (tasks: readonly TaskEntry[]): TaskEntry | undefined =>
  tasks.find((task) => task.status === 'answered');

const statusOf = (tasks: readonly TaskEntry[], id: string): TaskStatus | undefined =>
  tasks.find((task) => task.id === id)?.status;

/** The first waiting task whose `after` tasks have all landed: the next to start. */
export function nextReadyTask(tasks: readonly TaskEntry[]): TaskEntry | undefined {
  return tasks.find(
    (task) => task.status === 'waiting' && task.after.every((id) => statusOf(tasks, id) === 'landed'),
  );
}

/** The first waiting task some `after` task of which settled without landing: it can never start. */
export function unreachableTask(tasks: readonly TaskEntry[]): TaskEntry | undefined {
  return tasks.find(
    (task) =>
      task.status === 'waiting' &&
      task.after.some((id) => {
        const before = tasks.find((t) => t.id === id);
        return before !== undefined && isSettled(before) && before.status !== 'landed';
      }),
  );
}

/** The id of a task's run actor among the batch's children. */
export const runActorId = (taskId: string): string => `run-${taskId}`;

/** The same tasks with one of them changed. */
export function updateTask(tasks: readonly TaskEntry[], id: string, change: Partial<TaskEntry>): TaskEntry[] {
  return tasks.map((task) => (task.id === id ? { ...task, ...change } : task));
}
