import {
  type AnyActorRef,
  type AnyTransitionDefinition,
  createActor,
  fromCallback,
  fromPromise,
  setup,
  waitFor,
} from 'xstate';
import { batchMachine } from '../../src/machines/batch.machine.js';
import type {
  BatchEvent,
  BringOutcome,
  CombinedVerify,
  ConflictItem,
  MergeItem,
  MergeReport,
  ResolveOutcome,
  RunTaskEvent,
  RunTaskInput,
  TaskAnswerEvent,
  TaskEntry,
  TaskOutcome,
} from '../../src/machines/batch-types.js';
import { type MergeQueueInput, mergeQueueMachine } from '../../src/machines/merge-queue.machine.js';

/** How a scripted merge of one task goes, step by step. */
export type MergeScript =
  | 'lands'
  | 'conflicts'
  | 'fails-verify'
  | 'rebase-throws'
  | 'verify-throws'
  | 'target-moved'
  | 'verify-hangs'
  | 'land-hangs'
  | 'resolved'
  | 'unresolved'
  | 'resolver-throws'
  | 'resolver-hangs';

/** The scripts whose rebase conflicts: each goes on (to a resolver, or to needs-review) from a conflict. */
const CONFLICTING: ReadonlySet<MergeScript> = new Set([
  'conflicts',
  'resolved',
  'unresolved',
  'resolver-throws',
  'resolver-hangs',
]);

/** A step that never ends on its own: it settles only when its actor is stopped. */
const hang = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))));

/** The merge queue's actors, each answering from the script of the task it works on. */
export function scriptedMergeQueue(scripts: Record<string, MergeScript>, log: string[] = []) {
  const script = (item: MergeItem) => scripts[item.taskId] ?? 'lands';
  return mergeQueueMachine.provide({
    actors: {
      bringOntoTarget: fromPromise<BringOutcome, MergeItem>(async ({ input }) => {
        log.push(`bring ${input.taskId}`);
        if (script(input) === 'rebase-throws') throw new Error('git rebase could not start');
        if (CONFLICTING.has(script(input)))
          return { kind: 'conflict', files: ['same.txt'], detail: 'CONFLICT' };
        return { kind: 'rebased', head: `head-${input.taskId}`, onto: 'target' };
      }),
      resolveConflicts: fromPromise<ResolveOutcome, ConflictItem>(async ({ input, signal }) => {
        log.push(`resolve ${input.taskId} ${input.files.join(',')}`);
        if (script(input) === 'resolver-throws') throw new Error('the resolver could not start');
        if (script(input) === 'resolver-hangs') return hang(signal);
        if (script(input) === 'unresolved')
          return { kind: 'unresolved', note: 'blocked: both sides disagree' };
        return { kind: 'resolved', head: `merged-${input.taskId}`, onto: 'target' };
      }),
      verifyCombined: fromPromise<CombinedVerify, MergeItem>(async ({ input, signal }) => {
        log.push(`verify ${input.taskId}`);
        if (script(input) === 'verify-hangs') return hang(signal);
        if (script(input) === 'verify-throws') throw new Error('the verify command could not start');
        return { passed: script(input) !== 'fails-verify', outputTail: 'FAIL combined' };
      }),
      landOnTarget: fromPromise<void, MergeItem & { head: string; onto: string }>(
        async ({ input, signal }) => {
          log.push(`land ${input.taskId}`);
          if (script(input) === 'land-hangs') return hang(signal);
          if (script(input) === 'target-moved') throw new Error('target moved');
        },
      ),
    },
  });
}

/** Loops that settle only when the test says so: what each was started with, and how to settle it. */
export class ScriptedLoops {
  readonly started: RunTaskInput[] = [];
  readonly cancelled: string[] = [];
  /** The loops the batch gave a slot back after their answer (SLOT), in order. */
  readonly slots: string[] = [];
  private readonly settle = new Map<string, (outcome: TaskOutcome) => void>();
  private readonly senders = new Map<string, (event: TaskAnswerEvent) => void>();
  /** The most loops alive at once. */
  maxAlive = 0;

  readonly logic = fromCallback<RunTaskEvent, RunTaskInput>(({ input, sendBack, receive }) => {
    this.started.push(input);
    this.settle.set(input.taskId, (outcome) => {
      this.settle.delete(input.taskId);
      sendBack({ type: 'TASK.SETTLED', taskId: input.taskId, outcome } satisfies BatchEvent);
    });
    this.senders.set(input.taskId, sendBack);
    this.maxAlive = Math.max(this.maxAlive, this.settle.size);
    receive((event) => (event.type === 'SLOT' ? this.slots : this.cancelled).push(input.taskId));
  });

  /** A running loop says what its run does while it waits for a person (TASK.ASKED, .ANSWERED, .RESUMED). */
  tell(event: TaskAnswerEvent): void {
    const send = this.senders.get(event.taskId);
    if (send === undefined || !this.settle.has(event.taskId))
      throw new Error(`no loop of ${event.taskId} is running`);
    send(event);
  }

  /** Settles a running loop. */
  finish(taskId: string, outcome: TaskOutcome): void {
    const settle = this.settle.get(taskId);
    if (settle === undefined) throw new Error(`no loop of ${taskId} is running`);
    settle(outcome);
  }

  running(): string[] {
    return [...this.settle.keys()];
  }
}

/** A completed loop's outcome. */
export const completed = (taskId: string): TaskOutcome => ({
  kind: 'completed',
  runId: `run-${taskId}`,
  rounds: 1,
  head: 'h',
});

/** The transitions the machines of an actor system took, by the machine that took them. */
export interface Taken {
  batch: AnyTransitionDefinition[];
  queue: AnyTransitionDefinition[];
}

/** Starts the batch machine with scripted loops and merges, recording every transition taken. */
export function startBatch(
  tasks: { id: string; after?: string[]; status?: TaskEntry['status'] }[],
  options: {
    parallel?: number;
    verifies?: boolean;
    resolves?: boolean;
    merges?: Record<string, MergeScript>;
  } = {},
) {
  const loops = new ScriptedLoops();
  const mergeLog: string[] = [];
  const taken: Taken = { batch: [], queue: [] };
  const machine = batchMachine.provide({
    actors: { runTask: loops.logic, mergeQueue: scriptedMergeQueue(options.merges ?? {}, mergeLog) },
  });
  const actor = createActor(machine, {
    input: {
      tasks: tasks.map((task) => ({
        id: task.id,
        after: task.after ?? [],
        ...(task.status === undefined ? {} : { status: task.status }),
      })),
      parallel: options.parallel ?? 2,
      verifies: options.verifies ?? true,
      resolves: options.resolves ?? false,
      branches: Object.fromEntries(tasks.map((task) => [task.id, `ralph/b/${task.id}`])),
    },
    inspect: (event) => {
      if (event.type !== '@xstate.microstep') return;
      const id = (event.actorRef as AnyActorRef).id;
      (id === 'mergeQueue' ? taken.queue : taken.batch).push(...event._transitions);
    },
  });
  actor.start();
  return { actor, loops, mergeLog, taken };
}

/** Resolves once the batch's merge queue has nothing queued and is idle. */
export async function queueIdle(actor: ReturnType<typeof startBatch>['actor']): Promise<void> {
  const queue = actor.getSnapshot().children.mergeQueue as AnyActorRef | undefined;
  if (queue === undefined) return;
  await waitFor(queue, (s) => s.value === 'idle' && s.context.queue.length === 0);
}

/** A parent for the merge queue alone: it records what the queue reports, and can cancel it. */
export function startQueue(scripts: Record<string, MergeScript>, verifies = true, resolves = false) {
  return startQueueUnder(scriptedMergeQueue(scripts), { verifies, resolves });
}

/** Starts `queueLogic` (the merge queue with its steps provided) under a parent that records what it reports. */
export function startQueueUnder(queueLogic: typeof mergeQueueMachine, input: MergeQueueInput) {
  const reports: MergeReport[] = [];
  const taken: AnyTransitionDefinition[] = [];
  const parent = setup({
    types: { events: {} as MergeReport },
    actors: { mergeQueue: queueLogic },
  }).createMachine({
    invoke: { id: 'mergeQueue', src: 'mergeQueue', input },
    on: {
      'MERGE.LANDED': { actions: ({ event }) => reports.push(event) },
      'MERGE.NEEDS_REVIEW': { actions: ({ event }) => reports.push(event) },
    },
  });
  const actor = createActor(parent, {
    inspect: (event) => {
      if (event.type === '@xstate.microstep' && (event.actorRef as AnyActorRef).id === 'mergeQueue')
        taken.push(...event._transitions);
    },
  });
  actor.start();
  const queue = actor.getSnapshot().children.mergeQueue as AnyActorRef;
  return { actor, queue, reports, taken };
}
