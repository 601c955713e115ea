/** What the batch and merge-queue machines say to each other, and what their actors take and give. */

/** Where a task stands in its batch. */
export type TaskStatus =
  | 'waiting'
  | 'running'
  /** Its loop is blocked and waits for a person's answer (`--ask`): it holds no parallel slot meanwhile. */
  | 'awaiting-answer'
  /** Its loop got an answer and goes on once a parallel slot is free. */
  | 'answered'
  | 'queued'
  | 'landed'
  | 'needs-review'
  | 'failed'
  | 'skipped'
  | 'cancelled';

/** One task as the batch machine keeps it: plain data, so a snapshot can be recorded. */
export interface TaskEntry {
  id: string;
  after: string[];
  status: TaskStatus;
  /** Why it ended as it did (a run's status, the conflicting files, the failing verify's tail). */
  note: string | null;
  /** The files a rebase onto the target conflicted in (needs-review). */
  conflicts: string[];
}

/** How a task's loop ended, as its run actor reports it. */
export type TaskOutcome =
  | { kind: 'completed'; runId: string; rounds: number; head: string }
  | { kind: 'ended'; runId: string | null; status: string; note: string }
  | { kind: 'cancelled' };

/** What a merge step works on: one task's branch. */
export interface MergeItem {
  taskId: string;
  branch: string;
}

/** How the bring-onto-target step ended. */
export type BringOutcome =
  | { kind: 'rebased'; head: string; onto: string }
  | { kind: 'conflict'; files: string[]; detail: string };

/** How a resolver loop's attempt at a conflicting task ended. */
export type ResolveOutcome =
  | { kind: 'resolved'; head: string; onto: string }
  | { kind: 'unresolved'; note: string };

/** What the resolver works on: the task, and the files its rebase conflicted in. */
export interface ConflictItem extends MergeItem {
  files: string[];
}

/** How the verify step ended on the combined tree. */
export interface CombinedVerify {
  passed: boolean;
  /** The end of its output (bounded) when it failed. */
  outputTail: string;
}

/** Events the merge queue takes. */
export type MergeQueueEvent = { type: 'ENQUEUE'; item: MergeItem } | { type: 'CANCEL' };

/** Events the merge queue sends its parent. */
export type MergeReport =
  | { type: 'MERGE.LANDED'; taskId: string; head: string }
  | { type: 'MERGE.NEEDS_REVIEW'; taskId: string; note: string; files: string[] };

/** What a task's loop says while it waits for a person (`--ask`): it asked (the question), it got its answer. */
export type TaskAnswerEvent =
  | { type: 'TASK.ASKED'; taskId: string; question: string }
  | { type: 'TASK.ANSWERED'; taskId: string }
  /** It went on without a slot: no slot freed before its answer wait would have run out (see batch-answers.ts). */
  | { type: 'TASK.RESUMED'; taskId: string };

/** What the batch tells a run actor: stop, or go on now that it has a parallel slot again (after an answer). */
export type RunTaskEvent = { type: 'CANCEL' } | { type: 'SLOT' };

/** Events the batch machine takes: its run actors' and merge queue's reports, and the user's cancel. */
export type BatchEvent =
  | { type: 'TASK.SETTLED'; taskId: string; outcome: TaskOutcome }
  | TaskAnswerEvent
  | MergeReport
  | { type: 'CANCEL'; reason?: string };

/** What a run actor is started with. */
export interface RunTaskInput {
  taskId: string;
  /** The task's start: the batch's base, or the target's head once its `after` tasks landed. */
  startFromTarget: boolean;
}
