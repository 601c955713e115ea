import { tmpdir } from 'node:os';
import { checkTaskOrder, TasksFileError, tasksOfData } from '../contract/batch-tasks.js';
import { git } from '../workspace/git-command.js';
import { repoUrlProblem } from '../workspace/git-remote.js';
import { taskBranch } from '../workspace/git-session.js';
import type { FleetBatchTask } from './batch-input.js';

// A batch task's row is whatever JSON its writer stored in the fleet's database: `ralph submit --batch` checks what it
// writes, but anyone who can write to the database could write anything. The worker checks every id, URL and ref it
// will put into a path or a git command, where it uses them.

/** A commit id as git prints it (SHA-1, or SHA-256). */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Why the tasks file's rules refuse `tasks`, or null: the very check `ralph submit --batch` runs on the file. */
function tasksProblem(tasks: { id: unknown; after?: unknown }[]): string | null {
  try {
    checkTaskOrder(tasksOfData(tasks.map((task) => ({ ...task, objective: 'checked elsewhere' }))));
    return null;
  } catch (error) {
    if (!(error instanceof TasksFileError)) throw error;
    // The place in the list (`0.id: `) means nothing to the reader of one row.
    return error.message.replace(/^\d+\.id: /, '');
  }
}

/** Why `id` is no task id a tasks file may give (`a-z`, `0-9`, `.`, `_`, `-`, …), or null. */
const idProblem = (id: unknown): string | null => tasksProblem([{ id }]);

/** Whether `name` is a branch name git takes (`git check-ref-format`), never one that would read as an option. */
async function isBranchName(name: string): Promise<boolean> {
  if (name.startsWith('-')) return false;
  return git(tmpdir(), ['check-ref-format', `refs/heads/${name}`]).then(
    () => true,
    () => false,
  );
}

/**
 * Why the worker refuses a batch task's row (or its landing's), or null when it takes it: its batch and task ids
 * follow the tasks file's id rules (a batch id has no dot), `workflowId` is the one those ids make (`idOf`), the
 * repository URL is one a worker may clone, the target is a branch name, the branch is `ralph/<batch-id>/<task-id>`,
 * and the base a commit id.
 */
export async function batchRowProblem(
  task: FleetBatchTask,
  workflowId: string,
  idOf: (batchId: string, taskId: string) => string,
): Promise<string | null> {
  const row = task as unknown as Record<string, unknown>;
  const shown = (value: unknown) => JSON.stringify(value) ?? String(value);
  const batchId =
    idProblem(row.batchId) ?? (String(row.batchId).includes('.') ? 'must not contain "."' : null);
  if (batchId !== null) return `its batch id ${shown(row.batchId)} is refused: ${batchId}`;
  const taskId = idProblem(row.taskId);
  if (taskId !== null) return `its task id ${shown(row.taskId)} is refused: ${taskId}`;
  const expected = idOf(task.batchId, task.taskId);
  if (workflowId !== expected)
    return `its workflow id ${shown(workflowId)} is not the one its ids make, ${expected}`;
  const url = typeof row.repo === 'string' ? repoUrlProblem(row.repo) : 'it is not a string';
  if (url !== null) return `its repository URL ${shown(row.repo)} is refused: ${url}`;
  if (typeof row.target !== 'string' || !(await isBranchName(row.target)))
    return `its target ${shown(row.target)} is refused: it is no branch name`;
  const branch = taskBranch(task.batchId, task.taskId);
  if (row.branch !== branch)
    return `its branch ${shown(row.branch)} is refused: a task's branch is ${branch}, where its agents' work waits for the merge queue`;
  if (typeof row.base !== 'string' || !COMMIT_ID.test(row.base))
    return `its base ${shown(row.base)} is refused: it is no commit id`;
  if (!Array.isArray(row.after) || !row.after.every((id) => typeof id === 'string'))
    return `its after ${shown(row.after)} is refused: it is not a list of task ids`;
  return null;
}

/** A task of a batch as its row gives it: its id (from its run id) and the tasks it comes after. */
export interface BatchRowOrder {
  taskId: string;
  after: unknown;
}

/**
 * Why the task's `after` is refused, as `ralph submit --batch` refuses a tasks file's (a task coming after itself,
 * after a task the batch does not have, or in a cycle), or null. Checked over the task and those it comes after,
 * through theirs: a task waiting on one of these would wait forever, holding a worker's slot.
 */
export function afterProblem(task: FleetBatchTask, batch: readonly BatchRowOrder[]): string | null {
  const rows = new Map(batch.map((row) => [row.taskId, row.after]));
  rows.set(task.taskId, task.after);
  const tasks: { id: string; after: unknown }[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id) || !rows.has(id)) return;
    seen.add(id);
    const after = rows.get(id);
    tasks.push({ id, after });
    if (Array.isArray(after)) for (const before of after) if (typeof before === 'string') visit(before);
  };
  visit(task.taskId);
  return tasksProblem(tasks);
}
