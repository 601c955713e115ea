// The models of the batch machine and the merge queue for xstate/graph: the events each takes, by state and context,
// and a replay of each generated path against the real machine, with every actor of it driven by the path.
import {
  type ActorLogic,
  type AnyActorRef,
  type AnyTransitionDefinition,
  createActor,
  fromCallback,
  fromPromise,
  type SnapshotFrom,
  waitFor,
} from 'xstate';
import { serializeSnapshot, TestModel, type TestPath } from 'xstate/graph';
import { type BatchInput, batchMachine } from '../../src/machines/batch.machine.js';
import type {
  BringOutcome,
  CombinedVerify,
  ConflictItem,
  MergeItem,
  MergeReport,
  ResolveOutcome,
  TaskOutcome,
} from '../../src/machines/batch-types.js';
import { mergeQueueMachine } from '../../src/machines/merge-queue.machine.js';
import { ScriptedLoops, startQueueUnder } from './batch-harness.js';
import { serializeState } from './ralph-model.js';

/** An event of either model: a host's, a child's report, or an invoked actor's done / error event. */
export interface ModelEvent {
  type: string;
  taskId?: string;
  outcome?: TaskOutcome;
  reason?: string;
  note?: string;
  files?: string[];
  head?: string;
  item?: MergeItem;
  output?: unknown;
  error?: string;
  /** The name of the payload, when one event type carries several. */
  variant?: string;
  question?: string;
}

type AnySnapshot = SnapshotFrom<typeof batchMachine> | SnapshotFrom<typeof mergeQueueMachine>;

/** Whether a machine in `snapshot` takes `event`, guards included; a settled machine takes nothing. */
const takes = (snapshot: AnySnapshot, event: ModelEvent): boolean =>
  snapshot.status === 'active' && snapshot.can(event as never);

/** A readable name of an event of a path. */
export function describeEvent(event: ModelEvent): string {
  if (event.type === 'xstate.init') return 'start';
  const actorEvent = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
  if (actorEvent !== null)
    return `${actorEvent[2]} ${actorEvent[1] === 'done' ? (event.variant ?? 'done') : 'throws'}`;
  const about = event.taskId ?? event.item?.taskId;
  return [event.type, about, event.variant].filter((part) => part !== undefined).join(' ');
}

/** A path's name: its events in order. */
export const describePath = (path: TestPath<AnySnapshot, ModelEvent>): string =>
  path.steps.map((step) => describeEvent(step.event)).join(' → ');

// ---- the batch machine ----

/** How a task's loop can end, by name. */
const LOOP_ENDS: [string, TaskOutcome][] = [
  ['completed', { kind: 'completed', runId: 'run', rounds: 1, head: 'h' }],
  ['blocked', { kind: 'ended', runId: 'run', status: 'blocked', note: 'needs a key' }],
  ['failed', { kind: 'ended', runId: 'run', status: 'failed', note: 'child failed' }],
  ['cancelled', { kind: 'cancelled' }],
];

/** How a loop that waits for a person (or for a slot after its answer) ends: unanswered, or cancelled. */
const WAITING_LOOP_ENDS = LOOP_ENDS.filter(([variant]) => variant === 'blocked' || variant === 'cancelled');

/**
 * The events the batch model offers: the host's CANCEL, each running loop's ends and question, each waiting loop's
 * answer (or its end unanswered), each answered loop's going on without a slot, each queued task's merge.
 */
function batchEvents(snapshot: SnapshotFrom<typeof batchMachine>): ModelEvent[] {
  const events: ModelEvent[] = [{ type: 'CANCEL', reason: 'interrupted' }];
  for (const task of snapshot.context.tasks) {
    if (task.status === 'running') {
      for (const [variant, outcome] of LOOP_ENDS)
        events.push({ type: 'TASK.SETTLED', taskId: task.id, outcome, variant });
      events.push({ type: 'TASK.ASKED', taskId: task.id, question: 'which key?' });
    }
    if (task.status === 'awaiting-answer') events.push({ type: 'TASK.ANSWERED', taskId: task.id });
    if (task.status === 'answered') events.push({ type: 'TASK.RESUMED', taskId: task.id });
    if (task.status === 'awaiting-answer' || task.status === 'answered')
      for (const [variant, outcome] of WAITING_LOOP_ENDS)
        events.push({ type: 'TASK.SETTLED', taskId: task.id, outcome, variant });
    if (task.status === 'queued') {
      events.push({ type: 'MERGE.LANDED', taskId: task.id, head: `landed-${task.id}` });
      events.push({
        type: 'MERGE.NEEDS_REVIEW',
        taskId: task.id,
        note: 'conflict in same.txt',
        files: ['same.txt'],
      });
    }
  }
  return events;
}

/** The batch machine the model walks: the real config, with children that do nothing (traversal starts none). */
const batchModelMachine = batchMachine.provide({
  actors: { runTask: fromCallback(() => {}), mergeQueue: fromCallback(() => {}) as never },
});

/** The batches the model walks: each a task list, a cap on loops at once, and what a resumed batch kept. */
export const BATCH_INPUTS: { name: string; input: BatchInput }[] = [
  { name: 'two tasks, one at a time', input: batchInput([{ id: 'a' }, { id: 'b' }], 1) },
  { name: 'b after a, two at a time', input: batchInput([{ id: 'a' }, { id: 'b', after: ['a'] }], 2) },
  {
    name: 'a resumed batch: a needs review, b after a, c to run',
    input: batchInput([{ id: 'a', status: 'needs-review' }, { id: 'b', after: ['a'] }, { id: 'c' }], 2),
  },
  {
    name: 'a task landed by hand (ralph batch --land): a queued, b landed',
    input: batchInput(
      [
        { id: 'a', status: 'queued' },
        { id: 'b', status: 'landed' },
      ],
      1,
    ),
  },
];

function batchInput(
  tasks: (Omit<BatchInput['tasks'][number], 'after'> & { after?: string[] })[],
  parallel: number,
): BatchInput {
  return {
    tasks: tasks.map((task) => ({ ...task, after: task.after ?? [] })),
    parallel,
    verifies: true,
    resolves: false,
    branches: Object.fromEntries(tasks.map((task) => [task.id, `ralph/b/${task.id}`])),
  };
}

/** Every path the batch model has: the shortest path to each of its states. */
export function batchPaths(input: BatchInput): TestPath<AnySnapshot, ModelEvent>[] {
  const model = new TestModel<AnySnapshot, ModelEvent, BatchInput>(
    batchModelMachine as unknown as ActorLogic<AnySnapshot, ModelEvent, BatchInput>,
    {
      input,
      events: (snapshot) => batchEvents(snapshot as SnapshotFrom<typeof batchMachine>),
      filterEvents: takes,
      serializeState,
      limit: 5_000,
    },
  );
  return model.getShortestPaths();
}

/** The merge queue as the batch sees it in a replay: what was enqueued and cancelled, and its reports on cue. */
class DrivenQueue {
  readonly enqueued: string[] = [];
  cancelled = false;
  private report: ((event: MergeReport) => void) | null = null;
  readonly logic = fromCallback<
    { type: 'ENQUEUE'; item: MergeItem } | { type: 'CANCEL' },
    { queue?: MergeItem[] }
  >(({ input, sendBack, receive }) => {
    this.report = sendBack;
    // Tasks the batch was given queued are handed over in the queue's input.
    for (const item of input.queue ?? []) this.enqueued.push(item.taskId);
    receive((event) => {
      if (event.type === 'ENQUEUE') this.enqueued.push(event.item.taskId);
      else this.cancelled = true;
    });
  });
  send(event: MergeReport): void {
    if (this.report === null) throw new Error('the merge queue is not running');
    this.report(event);
  }
}

/** The state a replay compares: the value and the context. */
const observed = (snapshot: AnySnapshot): string =>
  JSON.stringify({ value: snapshot.value, context: snapshot.context, status: snapshot.status });

/** Waits until the actor is in the step's state; fails naming both when it settles elsewhere. */
async function reach(actor: AnyActorRef, expected: AnySnapshot, what: string): Promise<void> {
  const want = observed(expected);
  try {
    await waitFor(actor, (s) => observed(s as AnySnapshot) === want, { timeout: 5_000 });
  } catch {
    throw new Error(
      `after ${what} the machine is in\n${observed(actor.getSnapshot() as AnySnapshot)}\nnot in\n${want}`,
    );
  }
}

/**
 * Replays a batch path against the real batch machine: each loop's end is its run actor settling, each merge report
 * the merge queue's, CANCEL the host's. After each step the machine must be in the step's state; besides, a task that
 * became queued must have been handed to the merge queue, and CANCEL must reach every running loop.
 */
export async function replayBatchPath(
  input: BatchInput,
  path: TestPath<AnySnapshot, ModelEvent>,
): Promise<AnyTransitionDefinition[]> {
  const loops = new ScriptedLoops();
  const queue = new DrivenQueue();
  const taken: AnyTransitionDefinition[] = [];
  const actor = createActor(
    batchMachine.provide({ actors: { runTask: loops.logic, mergeQueue: queue.logic as never } }),
    {
      input,
      inspect: (event) => {
        // The loops and the queue here are callbacks: every microstep is the batch machine's.
        if (event.type === '@xstate.microstep') taken.push(...event._transitions);
      },
    },
  );
  actor.start();
  let before = actor.getSnapshot();
  for (const step of path.steps) {
    const { event } = step;
    const running = loops.running();
    const slotsBefore = loops.slots.length;
    if (event.type === 'TASK.SETTLED') loops.finish(event.taskId as string, event.outcome as TaskOutcome);
    else if (event.type === 'TASK.ASKED')
      loops.tell({ type: 'TASK.ASKED', taskId: event.taskId as string, question: event.question as string });
    else if (event.type === 'TASK.ANSWERED' || event.type === 'TASK.RESUMED')
      loops.tell({ type: event.type, taskId: event.taskId as string });
    else if (event.type === 'MERGE.LANDED' || event.type === 'MERGE.NEEDS_REVIEW')
      queue.send(event as MergeReport);
    else if (event.type === 'CANCEL') actor.send({ type: 'CANCEL', reason: event.reason as string });
    await reach(actor, step.state, describeEvent(event));
    // An answered task the batch gave a slot (answered → running, not by its own TASK.RESUMED) was told SLOT.
    const granted = actor
      .getSnapshot()
      .context.tasks.filter(
        (task) =>
          task.status === 'running' &&
          before.context.tasks.find((t) => t.id === task.id)?.status === 'answered' &&
          event.type !== 'TASK.RESUMED',
      )
      .map((task) => task.id);
    if (loops.slots.slice(slotsBefore).join() !== granted.join())
      throw new Error(`the slots given back were ${loops.slots.slice(slotsBefore)}, not ${granted}`);
    before = actor.getSnapshot();
    if (event.type === 'CANCEL')
      for (const id of running)
        if (!loops.cancelled.includes(id)) throw new Error(`${id} was not told to cancel`);
  }
  const queued = (step: { state: AnySnapshot }) =>
    (step.state as SnapshotFrom<typeof batchMachine>).context.tasks
      .filter((task) => task.status === 'queued' || (task.status === 'landed' && !isKept(input, task.id)))
      .map((task) => task.id);
  const last = path.steps.at(-1);
  for (const id of last === undefined ? [] : queued(last))
    if (!queue.enqueued.includes(id)) throw new Error(`${id} was queued but never handed to the merge queue`);
  actor.stop();
  return taken;
}

/** Whether a task was settled before the batch started (a resumed batch's); one given queued is still to merge. */
const isKept = (input: BatchInput, taskId: string): boolean =>
  input.tasks.some((task) => task.id === taskId && task.status !== undefined && task.status !== 'queued');

// ---- the merge queue ----

/** What each merge step can answer, by the actor's id: done with a named output, or an error. */
const STEP_ENDS: Record<string, { variant: string; output?: unknown; error?: string }[]> = {
  bringOntoTarget: [
    {
      variant: 'rebased',
      output: { kind: 'rebased', head: 'combined', onto: 'target' } satisfies BringOutcome,
    },
    {
      variant: 'conflict',
      output: { kind: 'conflict', files: ['same.txt'], detail: 'CONFLICT' } satisfies BringOutcome,
    },
    { variant: 'error', error: 'git rebase could not start' },
  ],
  resolveConflicts: [
    {
      variant: 'resolved',
      output: { kind: 'resolved', head: 'merged', onto: 'target' } satisfies ResolveOutcome,
    },
    {
      variant: 'unresolved',
      output: { kind: 'unresolved', note: 'blocked: both sides' } satisfies ResolveOutcome,
    },
    { variant: 'error', error: 'the resolver could not start' },
  ],
  verifyCombined: [
    { variant: 'passes', output: { passed: true, outputTail: '' } satisfies CombinedVerify },
    { variant: 'fails', output: { passed: false, outputTail: 'FAIL combined' } satisfies CombinedVerify },
    { variant: 'error', error: 'the verify command could not start' },
  ],
  landOnTarget: [
    { variant: 'landed', output: undefined },
    { variant: 'error', error: 'target moved' },
  ],
};

/** The events the queue model offers: a task joins (at most two in the queue at once), CANCEL, each step's ends. */
function queueEvents(snapshot: SnapshotFrom<typeof mergeQueueMachine>): ModelEvent[] {
  const { queue, current } = snapshot.context;
  const events: ModelEvent[] = [{ type: 'CANCEL' }];
  if (queue.length === 0) {
    const taskId = current?.taskId === 'x' ? 'y' : 'x';
    events.push({ type: 'ENQUEUE', item: { taskId, branch: `ralph/b/${taskId}` } });
  }
  for (const [id, ends] of Object.entries(STEP_ENDS))
    for (const end of ends)
      events.push(
        end.error === undefined
          ? { type: `xstate.done.actor.${id}`, output: end.output, variant: end.variant }
          : { type: `xstate.error.actor.${id}`, error: end.error, variant: end.variant },
      );
  return events;
}

/** The queue's gates the model walks: with and without a verify command, and conflicts to a resolver or not. */
export const QUEUE_INPUTS = [
  { verifies: true, resolves: true },
  { verifies: true, resolves: false },
  { verifies: false, resolves: false },
];

/**
 * The queue machine the model walks: the real config, with steps that never settle on their own, and its reports to
 * the batch left out (traversal has no parent to send them to; the replays check them).
 */
const never = <TOutput, TInput>() => fromPromise<TOutput, TInput>(() => new Promise<never>(() => {}));
const queueModelMachine = mergeQueueMachine.provide({
  actors: {
    bringOntoTarget: never<BringOutcome, MergeItem>(),
    resolveConflicts: never<ResolveOutcome, ConflictItem>(),
    verifyCombined: never<CombinedVerify, MergeItem>(),
    landOnTarget: never<void, MergeItem & { head: string; onto: string }>(),
  },
  actions: { reportLanded: () => {}, reportNeedsReview: () => {} },
});

/** Every path the queue model has: the shortest path to each of its states. */
export function queuePaths(input: {
  verifies: boolean;
  resolves: boolean;
}): TestPath<AnySnapshot, ModelEvent>[] {
  const model = new TestModel<AnySnapshot, ModelEvent, typeof input>(
    queueModelMachine as unknown as ActorLogic<AnySnapshot, ModelEvent, typeof input>,
    {
      input,
      events: (snapshot) => queueEvents(snapshot as SnapshotFrom<typeof mergeQueueMachine>),
      filterEvents: takes,
      // A merge that landed and one that needed review both leave the queue idle with nothing current, as it started:
      // a state is also the event that led to it, so that the shortest paths take every transition, not only those
      // on the way to a new context.
      serializeState: (snapshot, event) =>
        `${serializeSnapshot(snapshot)} via ${event === undefined ? 'start' : describeEvent(event)}`,
      limit: 5_000,
    },
  );
  return model.getShortestPaths();
}

/** Merge steps that answer when the path says: each step's promise waits for its event. */
class DrivenSteps {
  private readonly pending = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>();
  /** The input each step was last started with, by its id. */
  readonly inputs = new Map<string, unknown>();
  private step<TOutput, TInput>(id: string) {
    return fromPromise<TOutput, TInput>(
      ({ input }) =>
        new Promise<TOutput>((resolve, reject) => {
          this.inputs.set(id, input);
          this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        }),
    );
  }
  readonly actors = {
    bringOntoTarget: this.step<BringOutcome, MergeItem>('bringOntoTarget'),
    resolveConflicts: this.step<ResolveOutcome, ConflictItem>('resolveConflicts'),
    verifyCombined: this.step<CombinedVerify, MergeItem>('verifyCombined'),
    landOnTarget: this.step<void, MergeItem & { head: string; onto: string }>('landOnTarget'),
  };
  /** Ends the step `id` that is running, with its output or an error. */
  end(id: string, event: ModelEvent): void {
    const step = this.pending.get(id);
    if (step === undefined) throw new Error(`${id} is not running`);
    this.pending.delete(id);
    if (event.error === undefined) step.resolve(event.output);
    else step.reject(new Error(event.error));
  }
}

/**
 * Replays a queue path against the real merge queue under a parent that hears its reports: each step's end is its
 * actor settling. After each step the queue must be in the step's state, and a merge that reached `landed` or
 * `needsReview` must have told the parent so, once; the target moves (landOnTarget) only with the rebased head.
 */
export async function replayQueuePath(
  input: { verifies: boolean; resolves: boolean },
  path: TestPath<AnySnapshot, ModelEvent>,
): Promise<AnyTransitionDefinition[]> {
  const steps = new DrivenSteps();
  const { actor, queue, reports, taken } = startQueueUnder(
    mergeQueueMachine.provide({ actors: steps.actors }),
    input,
  );
  const expected: string[] = [];
  for (const step of path.steps) {
    const { event } = step;
    const actorEvent = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    if (actorEvent !== null) steps.end(actorEvent[2] as string, event);
    else if (event.type === 'ENQUEUE') queue.send({ type: 'ENQUEUE', item: event.item as MergeItem });
    else if (event.type === 'CANCEL') queue.send({ type: 'CANCEL' });
    await reach(queue, step.state, describeEvent(event));
    // A step's end that leaves the queue idle or on the next task ended the merge: the parent heard how.
    if (actorEvent !== null && ['idle', 'bringingOntoTarget'].includes(step.state.value as string))
      expected.push(event.type === 'xstate.done.actor.landOnTarget' ? 'MERGE.LANDED' : 'MERGE.NEEDS_REVIEW');
    const heard = reports.map((report) => report.type);
    if (JSON.stringify(heard) !== JSON.stringify(expected))
      throw new Error(`after ${describeEvent(event)} the parent heard [${heard}], not [${expected}]`);
  }
  const landing = steps.inputs.get('landOnTarget') as { head: string } | undefined;
  if (landing !== undefined && !['combined', 'merged'].includes(landing.head))
    throw new Error(`the target was to move to ${landing.head}, not the rebased or resolved head`);
  actor.stop();
  return taken;
}
