import { assign, enqueueActions, fromCallback, sendTo, setup, spawnChild, stopChild } from 'xstate';
import {
  hasLiveLoop,
  isSettled,
  liveLoopCount,
  nextAnsweredTask,
  nextReadyTask,
  runActorId,
  runningCount,
  unreachableTask,
  updateTask,
} from './batch-policy.js';
import type {
  BatchEvent,
  MergeItem,
  RunTaskEvent,
  RunTaskInput,
  TaskEntry,
  TaskOutcome,
  TaskStatus,
} from './batch-types.js';
import { mergeQueueMachine } from './merge-queue.machine.js';

/** What a batch is started with: its tasks (ids and order), how many loops may run at once, the queue's gate. */
export interface BatchInput {
  /**
   * Each task, and for a resumed batch where it got to: a settled task (landed, needs review…) stays as it was; a
   * task given `queued` goes to the merge queue at once.
   */
  tasks: ({ id: string; after: string[] } & Partial<Pick<TaskEntry, 'status' | 'note' | 'conflicts'>>)[];
  parallel: number;
  verifies: boolean;
  /** Conflicts go to a resolver loop (`--resolve-conflicts`). */
  resolves: boolean;
  /** The branch a task's loop works on, by task id: what the merge queue lands. */
  branches: Record<string, string>;
}

/** The batch's context: plain data. */
export interface BatchContext {
  tasks: TaskEntry[];
  parallel: number;
  verifies: boolean;
  resolves: boolean;
  branches: Record<string, string>;
  /** Why the batch was cancelled (the user, or a batch-wide budget), once it was. */
  cancelReason: string | null;
}

/** What a batch settles with: every task's end. */
export interface BatchOutput {
  tasks: TaskEntry[];
  cancelReason: string | null;
}

const notProvided = () => () => {
  throw new Error('batchMachine actor "runTask" was not provided; run the batch through the batch runner');
};

/** How a settled loop's task reads: landed later by the queue when it completed, else ended here. */
const endedNote = (outcome: TaskOutcome): string => {
  if (outcome.kind !== 'ended') return 'cancelled';
  // A failed run's status is the task's own: its note is the failure alone.
  return outcome.status === 'failed' ? outcome.note : `${outcome.status}: ${outcome.note}`;
};

/**
 * A batch: many Ralph loops, one per task, each a run actor in its own git worktree, at most `parallel` at once; a
 * loop that completes joins the merge queue, a child machine that lands one task at a time. A task comes `after`
 * others only once they landed; one whose `after` task did not land is skipped. Nothing about batches is in the run
 * machine: each run actor runs the ralph machine, unchanged.
 */
export const batchMachine = setup({
  types: {
    context: {} as BatchContext,
    events: {} as BatchEvent,
    input: {} as BatchInput,
    output: {} as BatchOutput,
  },
  actors: {
    /**
     * One task's Ralph loop in its worktree; reports TASK.SETTLED once its run has settled, and with `--ask`
     * TASK.ASKED / TASK.ANSWERED while it waits for a person; takes CANCEL, and SLOT once it may go on after an answer.
     */
    runTask: fromCallback<RunTaskEvent, RunTaskInput>(notProvided()),
    mergeQueue: mergeQueueMachine,
  },
  guards: {
    canStartTask: ({ context }) =>
      runningCount(context.tasks) < context.parallel && nextReadyTask(context.tasks) !== undefined,
    // An answered task takes the first free slot, before any task not started yet: its loop is half done.
    canResumeAnsweredTask: ({ context }) =>
      runningCount(context.tasks) < context.parallel && nextAnsweredTask(context.tasks) !== undefined,
    hasUnreachableTask: ({ context }) => unreachableTask(context.tasks) !== undefined,
    taskIs: ({ context }, params: { taskId: string; status: TaskStatus }) =>
      context.tasks.some((task) => task.id === params.taskId && task.status === params.status),
    allTasksSettled: ({ context }) => context.tasks.every(isSettled),
    loopCompleted: (_, params: { outcome: TaskOutcome }) => params.outcome.kind === 'completed',
    noLoopRunning: ({ context }) => liveLoopCount(context.tasks) === 0,
  },
  actions: {
    // These three run only on the transition whose guard (canStartTask, hasUnreachableTask) found their task.
    spawnNextTask: spawnChild('runTask', {
      id: ({ context }) => runActorId(nextReadyTask(context.tasks)!.id),
      input: ({ context }) => {
        const task = nextReadyTask(context.tasks)!;
        return { taskId: task.id, startFromTarget: task.after.length > 0 };
      },
    }),
    markNextRunning: assign({
      tasks: ({ context }) =>
        updateTask(context.tasks, nextReadyTask(context.tasks)!.id, { status: 'running' }),
    }),
    // These two run only on the transition whose guard (canResumeAnsweredTask) found their task.
    grantSlot: sendTo(({ context }) => runActorId(nextAnsweredTask(context.tasks)!.id), {
      type: 'SLOT',
    } satisfies RunTaskEvent),
    markAnsweredRunning: assign({
      tasks: ({ context }) =>
        updateTask(context.tasks, nextAnsweredTask(context.tasks)!.id, { status: 'running', note: null }),
    }),
    markAwaitingAnswer: assign({
      tasks: ({ context }, params: { taskId: string; question: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'awaiting-answer', note: params.question }),
    }),
    markAnswered: assign({
      tasks: ({ context }, params: { taskId: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'answered', note: null }),
    }),
    markRunning: assign({
      tasks: ({ context }, params: { taskId: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'running', note: null }),
    }),
    skipUnreachable: assign({
      tasks: ({ context }) =>
        updateTask(context.tasks, unreachableTask(context.tasks)!.id, {
          status: 'skipped',
          note: 'a task it comes after did not land',
        }),
    }),
    stopRunActor: stopChild((_, params: { taskId: string }) => runActorId(params.taskId)),
    markQueued: assign({
      tasks: ({ context }, params: { taskId: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'queued' }),
    }),
    enqueueMerge: sendTo('mergeQueue', ({ context }, params: { taskId: string }) => ({
      type: 'ENQUEUE' as const,
      item: { taskId: params.taskId, branch: context.branches[params.taskId] ?? '' } satisfies MergeItem,
    })),
    markEnded: assign({
      tasks: ({ context }, params: { taskId: string; outcome: TaskOutcome }) =>
        updateTask(context.tasks, params.taskId, {
          status: params.outcome.kind === 'cancelled' ? 'cancelled' : 'failed',
          note: endedNote(params.outcome),
        }),
    }),
    markLanded: assign({
      tasks: ({ context }, params: { taskId: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'landed', note: null }),
    }),
    markNeedsReview: assign({
      tasks: ({ context }, params: { taskId: string; note: string; files: string[] }) =>
        updateTask(context.tasks, params.taskId, {
          status: 'needs-review',
          note: params.note,
          conflicts: params.files,
        }),
    }),
    markStoppedByCancel: assign({
      tasks: ({ context }, params: { taskId: string }) =>
        updateTask(context.tasks, params.taskId, { status: 'cancelled', note: 'the batch was cancelled' }),
    }),
    keepCancelReason: assign({
      cancelReason: (_, params: { reason: string | undefined }) => params.reason ?? 'cancelled',
    }),
    cancelRunningLoops: enqueueActions(({ context, enqueue }) => {
      for (const task of context.tasks)
        if (hasLiveLoop(task)) enqueue.sendTo(runActorId(task.id), { type: 'CANCEL' });
    }),
    cancelUnstarted: assign({
      tasks: ({ context }) =>
        context.tasks.map((task) =>
          task.status === 'waiting' || task.status === 'queued'
            ? { ...task, status: 'cancelled' as const, note: 'the batch was cancelled' }
            : task,
        ),
    }),
  },
}).createMachine({
  id: 'batch',
  description:
    'Many Ralph loops in parallel git worktrees, at most N at once, each landing on the target through a verified merge queue.',
  context: ({ input }) => ({
    tasks: input.tasks.map((task) => ({
      id: task.id,
      after: task.after,
      status: task.status ?? 'waiting',
      note: task.note ?? null,
      conflicts: task.conflicts ?? [],
    })),
    parallel: input.parallel,
    verifies: input.verifies,
    resolves: input.resolves,
    branches: input.branches,
    cancelReason: null,
  }),
  initial: 'running',
  output: ({ context }) => ({ tasks: context.tasks, cancelReason: context.cancelReason }),
  states: {
    running: {
      description:
        'Loops start while fewer than N run and a task is ready (its after tasks landed); finished loops join the merge queue. A loop waiting for an answer holds no slot.',
      invoke: {
        id: 'mergeQueue',
        src: 'mergeQueue',
        // A task given queued (its branch fixed by hand, `ralph batch --land`) is merged first, its loop not run.
        input: ({ context }) => ({
          verifies: context.verifies,
          resolves: context.resolves,
          queue: context.tasks
            .filter((task) => task.status === 'queued')
            .map((task) => ({ taskId: task.id, branch: context.branches[task.id] ?? '' })),
        }),
      },
      always: [
        { guard: 'allTasksSettled', target: 'settled' },
        { guard: 'hasUnreachableTask', actions: 'skipUnreachable' },
        { guard: 'canResumeAnsweredTask', actions: ['grantSlot', 'markAnsweredRunning'] },
        { guard: 'canStartTask', actions: ['spawnNextTask', 'markNextRunning'] },
      ],
      on: {
        'TASK.SETTLED': [
          {
            guard: { type: 'loopCompleted', params: ({ event }) => ({ outcome: event.outcome }) },
            actions: [
              { type: 'stopRunActor', params: ({ event }) => ({ taskId: event.taskId }) },
              { type: 'markQueued', params: ({ event }) => ({ taskId: event.taskId }) },
              { type: 'enqueueMerge', params: ({ event }) => ({ taskId: event.taskId }) },
            ],
          },
          {
            actions: [
              { type: 'stopRunActor', params: ({ event }) => ({ taskId: event.taskId }) },
              {
                type: 'markEnded',
                params: ({ event }) => ({ taskId: event.taskId, outcome: event.outcome }),
              },
            ],
          },
        ],
        // A loop waiting for a person's answer gives its slot back; answered, it waits for one (canResumeAnsweredTask).
        'TASK.ASKED': {
          guard: {
            type: 'taskIs',
            params: ({ event }) => ({ taskId: event.taskId, status: 'running' as const }),
          },
          actions: {
            type: 'markAwaitingAnswer',
            params: ({ event }) => ({ taskId: event.taskId, question: event.question }),
          },
        },
        'TASK.ANSWERED': {
          guard: {
            type: 'taskIs',
            params: ({ event }) => ({ taskId: event.taskId, status: 'awaiting-answer' as const }),
          },
          actions: { type: 'markAnswered', params: ({ event }) => ({ taskId: event.taskId }) },
        },
        'TASK.RESUMED': {
          guard: {
            type: 'taskIs',
            params: ({ event }) => ({ taskId: event.taskId, status: 'answered' as const }),
          },
          actions: { type: 'markRunning', params: ({ event }) => ({ taskId: event.taskId }) },
        },
        'MERGE.LANDED': {
          actions: { type: 'markLanded', params: ({ event }) => ({ taskId: event.taskId }) },
        },
        'MERGE.NEEDS_REVIEW': {
          actions: {
            type: 'markNeedsReview',
            params: ({ event }) => ({ taskId: event.taskId, note: event.note, files: event.files }),
          },
        },
        CANCEL: {
          target: 'cancelling',
          actions: [
            { type: 'keepCancelReason', params: ({ event }) => ({ reason: event.reason }) },
            'cancelRunningLoops',
            'cancelUnstarted',
          ],
        },
      },
    },
    cancelling: {
      description:
        'Every running loop was told to cancel and the merge queue stopped; the batch waits until each loop has settled.',
      always: { guard: 'noLoopRunning', target: 'cancelled' },
      on: {
        'TASK.SETTLED': {
          actions: [
            { type: 'stopRunActor', params: ({ event }) => ({ taskId: event.taskId }) },
            { type: 'markStoppedByCancel', params: ({ event }) => ({ taskId: event.taskId }) },
          ],
        },
      },
    },
    settled: {
      description: 'Every task landed, needs review, failed or was skipped.',
      type: 'final',
    },
    cancelled: {
      description: 'The batch was cancelled and no loop of it runs any more.',
      type: 'final',
    },
  },
});
