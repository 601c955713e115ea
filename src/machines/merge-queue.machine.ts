import { assertEvent, assign, fromPromise, sendParent, setup } from 'xstate';
import type {
  BringOutcome,
  CombinedVerify,
  ConflictItem,
  MergeItem,
  MergeQueueEvent,
  MergeReport,
  ResolveOutcome,
} from './batch-types.js';

/** What the merge queue is started with. */
export interface MergeQueueInput {
  /** True when a verify command gates every landing (it runs on the combined tree). */
  verifies: boolean;
  /** True when a conflict goes to a resolver loop (`--resolve-conflicts`, which needs a verify command). */
  resolves: boolean;
  /** Tasks queued from the start, merged first in this order (a task landed by hand: `ralph batch --land`). */
  queue?: MergeItem[];
}

/**
 * The queue's context: plain data. A merge's fields are set by the transition into the state that reads them (`current`
 * from takeNext on; `rebased` before verifying and landing; `problem` before resolvingConflicts and needsReview), so
 * the actions and step inputs read them with `!`: there is no fallback to take.
 */
export interface MergeQueueContext {
  verifies: boolean;
  resolves: boolean;
  /** Tasks waiting, oldest first. */
  queue: MergeItem[];
  /** The task being merged, and what its steps found so far. */
  current: MergeItem | null;
  rebased: { head: string; onto: string } | null;
  /** Why the current task needs review. */
  problem: { note: string; files: string[] } | null;
}

type Rebased = Extract<BringOutcome, { kind: 'rebased' }>;
type Conflict = Extract<BringOutcome, { kind: 'conflict' }>;
type Resolved = Extract<ResolveOutcome, { kind: 'resolved' }>;
type Unresolved = Extract<ResolveOutcome, { kind: 'unresolved' }>;

const notProvided = (name: string) => () => {
  throw new Error(`mergeQueueMachine actor "${name}" was not provided; run it through the batch runner`);
};

const errorNote = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The merge queue: one task at a time, its branch is brought onto the target's head in a scratch worktree, the
 * verify command runs on that combined tree, and only then does the target move. A conflict, a failing verify or a
 * target that moved is never a landing: the task is reported `needs-review` and the target is left as it was.
 */
export const mergeQueueMachine = setup({
  types: {
    context: {} as MergeQueueContext,
    events: {} as MergeQueueEvent,
    input: {} as MergeQueueInput,
  },
  actors: {
    /** Rebases the task's branch onto the target's head in the scratch worktree. */
    bringOntoTarget: fromPromise<BringOutcome, MergeItem>(notProvided('bringOntoTarget')),
    /** A Ralph loop of fresh agents that resolves the conflicts of a merge in the scratch worktree. */
    resolveConflicts: fromPromise<ResolveOutcome, ConflictItem>(notProvided('resolveConflicts')),
    /** Runs the verify command in the scratch worktree, on the combined tree. */
    verifyCombined: fromPromise<CombinedVerify, MergeItem>(notProvided('verifyCombined')),
    /** Moves the target to the combined head, only from the head it was rebased onto; removes the task's worktree. */
    landOnTarget: fromPromise<void, MergeItem & { head: string; onto: string }>(notProvided('landOnTarget')),
  },
  guards: {
    hasQueuedTask: ({ context }) => context.queue.length > 0,
    rebaseConflicted: (_, params: { outcome: BringOutcome }) => params.outcome.kind === 'conflict',
    verifyIsConfigured: ({ context }) => context.verifies,
    conflictsGoToResolver: ({ context }) => context.resolves,
    conflictsResolved: (_, params: { outcome: ResolveOutcome }) => params.outcome.kind === 'resolved',
    verifyPassed: (_, params: { verdict: CombinedVerify }) => params.verdict.passed,
  },
  actions: {
    enqueue: assign({
      queue: ({ context, event }) => {
        assertEvent(event, 'ENQUEUE');
        return [...context.queue, event.item];
      },
    }),
    takeNext: assign({
      current: ({ context }) => context.queue[0] ?? null,
      queue: ({ context }) => context.queue.slice(1),
      rebased: null,
      problem: null,
    }),
    // Each keep* action of an outcome runs on the transition whose guard told its kind apart: it reads that kind.
    keepRebased: assign({
      rebased: (_, params: { outcome: BringOutcome }) => {
        const { head, onto } = params.outcome as Rebased;
        return { head, onto };
      },
    }),
    keepConflict: assign({
      problem: (_, params: { outcome: BringOutcome }) => {
        const { files } = params.outcome as Conflict;
        return { note: `conflict in ${files.join(', ') || 'the rebase'}`, files };
      },
    }),
    keepResolved: assign({
      rebased: (_, params: { outcome: ResolveOutcome }) => {
        const { head, onto } = params.outcome as Resolved;
        return { head, onto };
      },
    }),
    keepUnresolved: assign({
      problem: ({ context }, params: { outcome: ResolveOutcome }) => ({
        note: `${context.problem!.note}; the resolver did not resolve it: ${(params.outcome as Unresolved).note}`,
        files: context.problem!.files,
      }),
    }),
    keepVerifyFailure: assign({
      problem: (_, params: { verdict: CombinedVerify }) => ({
        note: `the verify command failed on the combined tree:\n${params.verdict.outputTail}`,
        files: [],
      }),
    }),
    keepError: assign({
      problem: (_, params: { error: unknown }) => ({ note: errorNote(params.error), files: [] }),
    }),
    reportLanded: sendParent(
      ({ context }): MergeReport => ({
        type: 'MERGE.LANDED',
        taskId: context.current!.taskId,
        head: context.rebased!.head,
      }),
    ),
    reportNeedsReview: sendParent(
      ({ context }): MergeReport => ({
        type: 'MERGE.NEEDS_REVIEW',
        taskId: context.current!.taskId,
        note: context.problem!.note,
        files: context.problem!.files,
      }),
    ),
    clearCurrent: assign({ current: null, rebased: null, problem: null }),
  },
}).createMachine({
  id: 'mergeQueue',
  description:
    'Lands finished tasks one at a time: rebase onto the target head in a scratch worktree, verify the combined tree, then move the target; anything else is needs-review.',
  context: ({ input }) => ({
    verifies: input.verifies,
    resolves: input.resolves,
    queue: input.queue ?? [],
    current: null,
    rebased: null,
    problem: null,
  }),
  initial: 'idle',
  // A task can join the queue whatever the queue is doing; it waits its turn.
  on: { ENQUEUE: { actions: 'enqueue' } },
  states: {
    idle: {
      description: 'Nothing is being merged: the next queued task starts, or the queue waits for one.',
      always: { guard: 'hasQueuedTask', target: 'bringingOntoTarget', actions: 'takeNext' },
      on: { CANCEL: 'cancelled' },
    },
    bringingOntoTarget: {
      description: "The task's branch is rebased onto the target's head in the scratch worktree.",
      on: { CANCEL: 'cancelled' },
      invoke: {
        id: 'bringOntoTarget',
        src: 'bringOntoTarget',
        input: ({ context }) => context.current as MergeItem,
        onDone: [
          {
            guard: { type: 'rebaseConflicted', params: ({ event }) => ({ outcome: event.output }) },
            target: 'checkingConflict',
            actions: { type: 'keepConflict', params: ({ event }) => ({ outcome: event.output }) },
          },
          {
            guard: 'verifyIsConfigured',
            target: 'verifying',
            actions: { type: 'keepRebased', params: ({ event }) => ({ outcome: event.output }) },
          },
          {
            target: 'landing',
            actions: { type: 'keepRebased', params: ({ event }) => ({ outcome: event.output }) },
          },
        ],
        onError: {
          target: 'needsReview',
          actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    checkingConflict: {
      description:
        'The rebase conflicted: a resolver loop takes it when --resolve-conflicts is on, else it needs review.',
      always: [{ guard: 'conflictsGoToResolver', target: 'resolvingConflicts' }, { target: 'needsReview' }],
    },
    resolvingConflicts: {
      description:
        "A Ralph loop of fresh agents merges the task onto the target in the scratch worktree and resolves the conflicts, keeping both sides' intent.",
      on: { CANCEL: 'cancelled' },
      invoke: {
        id: 'resolveConflicts',
        src: 'resolveConflicts',
        input: ({ context }) => ({ ...(context.current as MergeItem), files: context.problem!.files }),
        onDone: [
          {
            guard: { type: 'conflictsResolved', params: ({ event }) => ({ outcome: event.output }) },
            target: 'verifying',
            actions: { type: 'keepResolved', params: ({ event }) => ({ outcome: event.output }) },
          },
          {
            target: 'needsReview',
            actions: { type: 'keepUnresolved', params: ({ event }) => ({ outcome: event.output }) },
          },
        ],
        onError: {
          target: 'needsReview',
          actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    verifying: {
      description: 'The verify command runs on the combined tree; only a pass lets the target move.',
      on: { CANCEL: 'cancelled' },
      invoke: {
        id: 'verifyCombined',
        src: 'verifyCombined',
        input: ({ context }) => context.current as MergeItem,
        onDone: [
          {
            guard: { type: 'verifyPassed', params: ({ event }) => ({ verdict: event.output }) },
            target: 'landing',
          },
          {
            target: 'needsReview',
            actions: { type: 'keepVerifyFailure', params: ({ event }) => ({ verdict: event.output }) },
          },
        ],
        onError: {
          target: 'needsReview',
          actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    landing: {
      description: 'The target moves to the combined head, only if it is still where the rebase found it.',
      on: { CANCEL: 'cancelled' },
      invoke: {
        id: 'landOnTarget',
        src: 'landOnTarget',
        input: ({ context }) => ({
          ...(context.current as MergeItem),
          head: context.rebased!.head,
          onto: context.rebased!.onto,
        }),
        onDone: 'landed',
        onError: {
          target: 'needsReview',
          actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    landed: {
      description: 'The task is on the target; the batch hears it, and the queue goes on.',
      entry: 'reportLanded',
      always: { target: 'idle', actions: 'clearCurrent' },
    },
    needsReview: {
      description:
        'A conflict, a failing verify or a moved target: the batch hears the task needs review, the target was not touched.',
      entry: 'reportNeedsReview',
      always: { target: 'idle', actions: 'clearCurrent' },
    },
    cancelled: {
      description:
        'The batch was cancelled: no merge runs any more; one that was going on was stopped before it landed.',
      type: 'final',
    },
  },
});
