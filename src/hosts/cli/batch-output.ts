import { taskWorktree } from '../../actors/merge-steps.js';
import type { BatchOutput } from '../../machines/batch.machine.js';
import type { TaskEntry } from '../../machines/batch-types.js';
import { stripControl, stripControlToLine } from '../../render/terminal-text.js';
import { taskBranch } from '../../workspace/git-session.js';
import { EXIT } from './exit-codes.js';

/** The line a task's new status gets on stderr. */
export function statusLine(task: TaskEntry, target: string): string {
  const note = task.note === null ? '' : stripControlToLine(task.note).slice(0, 300);
  switch (task.status) {
    case 'queued':
      return 'loop complete; queued for the merge queue';
    case 'landed':
      return `landed on ${target}`;
    case 'needs-review':
      return `needs review: ${note}`;
    case 'failed':
      return `did not complete: ${note}`;
    case 'skipped':
      return `skipped: ${note}`;
    case 'cancelled':
      return 'cancelled';
    case 'running':
    case 'waiting':
      return task.status;
  }
}

/** The exit code of a settled batch: 0 when every task landed. */
export function exitCodeOf(output: BatchOutput, cancelledBy: string | null): number {
  if (cancelledBy === 'interrupted') return EXIT.cancelled;
  if (cancelledBy !== null) return EXIT.budgetLimited;
  return output.tasks.every((task) => task.status === 'landed') ? EXIT.complete : EXIT.failed;
}

/**
 * One line on stdout per task: how it ended, and where its branch and worktree are when it needs a person (`kept`),
 * or its branch when a cancel removed its worktree, its work committed there (`workOnBranch`).
 */
export function summary(
  output: BatchOutput,
  folder: string,
  batchId: string,
  target: string,
  kept: Set<string>,
  workOnBranch: Set<string> = new Set(),
): string {
  const lines = output.tasks.map((task) => {
    const where = kept.has(task.id)
      ? `\n  branch ${taskBranch(batchId, task.id)}, worktree ${taskWorktree(folder, task.id)}`
      : workOnBranch.has(task.id)
        ? `\n  its work: branch ${taskBranch(batchId, task.id)}`
        : '';
    const files = task.conflicts.length > 0 ? `\n  conflicting files: ${task.conflicts.join(', ')}` : '';
    // A note's later lines (a failing verify's output) are quoted under the task, so only task lines start a line.
    const note = task.note === null ? '' : `: ${stripControl(task.note).trim().replaceAll('\n', '\n    ')}`;
    return `${task.id}: ${task.status}${task.status === 'landed' ? '' : note}${files}${where}`;
  });
  lines.push(`target ${target}; undo with: ralph batch --rollback ${batchId}`);
  return `${lines.join('\n')}\n`;
}
