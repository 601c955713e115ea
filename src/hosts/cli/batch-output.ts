import { taskWorktree } from '../../actors/merge-steps.js';
import { WAITING_FOR_ANSWER_WORDS, waitsForSlotLine } from '../../contract/batch-answer-messages.js';
import type { BatchOutput } from '../../machines/batch.machine.js';
import type { TaskEntry } from '../../machines/batch-types.js';
import { stripControl, stripControlToLine } from '../../render/terminal-text.js';
import { taskBranch } from '../../workspace/git-session.js';
import { EXIT } from './exit-codes.js';

/**
 * The line a task's new status gets on stderr. `asPulls` (`--land pr`): a landed task passed its verify on the
 * target's tree and waits on its own branch for its pull request, opened once the batch settles.
 */
export function statusLine(task: TaskEntry, target: string, asPulls = false): string {
  const note = task.note === null ? '' : stripControlToLine(task.note).slice(0, 300);
  switch (task.status) {
    case 'queued':
      return 'loop complete; queued for the merge queue';
    case 'landed':
      return asPulls
        ? `passed: its pull request into ${target} is opened once the batch settles`
        : `landed on ${target}`;
    case 'needs-review':
      return `needs review: ${note}`;
    case 'failed':
      return `did not complete: ${note}`;
    case 'skipped':
      return `skipped: ${note}`;
    case 'cancelled':
      return 'cancelled';
    case 'awaiting-answer':
      return `${WAITING_FOR_ANSWER_WORDS}: ${note}`;
    case 'answered':
      return waitsForSlotLine();
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

/** A task's pull request, as the summary of a `--land pr` batch gives it. */
export interface SummaryPull {
  htmlUrl: string;
  draft: boolean;
  state: 'open' | 'closed';
}

/** The commands the summary gives as next steps. */
export interface NextSteps {
  /** The command that lands a task that needs review once its branch is fixed (`ralph batch --land …`). */
  land(taskId: string): string;
  /** The command that resumes the batch, given when it was cancelled with tasks left to run; else null. */
  resume: string | null;
  /** `--land pr`: each task's pull request (a task missing here has none); undefined when the batch lands on its target. */
  pulls?: ReadonlyMap<string, SummaryPull | null>;
}

/** A task's pull request in the summary: where it is, and whether it waits for review or for a fix. */
function pullLine(taskId: string, pulls: ReadonlyMap<string, SummaryPull | null>): string {
  const pull = pulls.get(taskId);
  if (pull === undefined) return '\n  no pull request (see above why)';
  if (pull === null) return '\n  no pull request: no changes (its issue was told)';
  if (pull.state === 'closed') return `\n  pull request ${pull.htmlUrl} (closed)`;
  return pull.draft
    ? `\n  draft pull request ${pull.htmlUrl} (needs review)`
    : `\n  pull request ${pull.htmlUrl}`;
}

/** The line a task that needs review gets after its own: how to land it once a person fixed its branch. */
export const landHint = (branch: string, command: string): string =>
  `once its branch ${branch} is fixed (committed), land it with: ${command}`;

/**
 * One line on stdout per task: how it ended, and where its branch and worktree are when it needs a person (`kept`),
 * with the command that lands it once fixed, or its branch when a cancel removed its worktree, its work committed
 * there (`workOnBranch`). A cancelled batch ends with the command that goes on with it.
 */
export function summary(
  output: BatchOutput,
  folder: string,
  batchId: string,
  target: string,
  kept: Set<string>,
  workOnBranch: Set<string>,
  next: NextSteps,
): string {
  const lines = output.tasks.map((task) => {
    const branch = taskBranch(batchId, task.id);
    const where = kept.has(task.id)
      ? `\n  branch ${branch}, worktree ${taskWorktree(folder, task.id)}`
      : workOnBranch.has(task.id)
        ? `\n  its work: branch ${branch}`
        : '';
    const files = task.conflicts.length > 0 ? `\n  conflicting files: ${task.conflicts.join(', ')}` : '';
    // A note's later lines (a failing verify's output) are quoted under the task, so only task lines start a line.
    const note = task.note === null ? '' : `: ${stripControl(task.note).trim().replaceAll('\n', '\n    ')}`;
    const pulls = next.pulls;
    if (pulls !== undefined) {
      const status = task.status === 'landed' ? 'passed' : task.status;
      const pull = ['waiting', 'running', 'cancelled'].includes(task.status) ? '' : pullLine(task.id, pulls);
      return `${task.id}: ${status}${task.status === 'landed' ? '' : note}${files}${pull}${where}`;
    }
    const land = task.status === 'needs-review' ? `\n  ${landHint(branch, next.land(task.id))}` : '';
    return `${task.id}: ${task.status}${task.status === 'landed' ? '' : note}${files}${where}${land}`;
  });
  lines.push(
    next.pulls === undefined
      ? `target ${target}; undo with: ralph batch --rollback ${batchId}`
      : `pull requests into ${target}; ${target} itself did not move`,
  );
  if (next.resume !== null && output.tasks.some((task) => task.status === 'cancelled'))
    lines.push(`the cancelled tasks run again (landed ones stay landed) with: ${next.resume}`);
  return `${lines.join('\n')}\n`;
}
