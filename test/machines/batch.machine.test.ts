import { describe, expect, test } from 'vitest';
import { type AnyActorRef, createActor, fromCallback, waitFor } from 'xstate';
import type { BatchInput } from '../../src/machines/batch.machine.js';
import type {
  BatchEvent,
  MergeItem,
  MergeQueueEvent,
  RunTaskEvent,
  RunTaskInput,
  TaskOutcome,
} from '../../src/machines/batch-types.js';
import type { mergeQueueMachine } from '../../src/machines/merge-queue.machine.js';

// The machine is imported inside each test, not at the top of the file: a machine that cannot even be built must
// fail these tests, and a test file that fails to load would count (under Stryker) as no test at all.
const loadBatchMachine = async () => (await import('../../src/machines/batch.machine.js')).batchMachine;

/** Loops that settle only when the test says so: what each was started with, got sent, and whether it was stopped. */
class Loops {
  readonly started: RunTaskInput[] = [];
  readonly received: string[] = [];
  readonly stopped: string[] = [];
  private readonly settle = new Map<string, (outcome: TaskOutcome) => void>();

  readonly logic = fromCallback<RunTaskEvent, RunTaskInput>(({ input, sendBack, receive }) => {
    this.started.push(input);
    this.settle.set(input.taskId, (outcome) =>
      sendBack({ type: 'TASK.SETTLED', taskId: input.taskId, outcome } satisfies BatchEvent),
    );
    receive((event) => this.received.push(`${input.taskId} ${event.type}`));
    return () => this.stopped.push(input.taskId);
  });

  /** Settles the loop of `taskId`. */
  finish(taskId: string, outcome: TaskOutcome): void {
    const settle = this.settle.get(taskId);
    if (settle === undefined) throw new Error(`no loop of ${taskId} was started`);
    settle(outcome);
  }
}

/** A merge queue that only listens: what it was started with and sent, and whether it was stopped. */
class Queue {
  input: unknown;
  readonly received: MergeQueueEvent[] = [];
  stopped = false;

  readonly logic = fromCallback<MergeQueueEvent, unknown>(({ input, receive }) => {
    this.input = input;
    receive((event) => this.received.push(event));
    return () => {
      this.stopped = true;
    };
  });

  /** The logic typed as the merge queue it stands in for: the batch only sends it ENQUEUE and stops it. */
  get standIn(): typeof mergeQueueMachine {
    return this.logic as unknown as typeof mergeQueueMachine;
  }

  /** The items it was asked to merge, in order. */
  items(): MergeItem[] {
    return this.received.flatMap((event) => (event.type === 'ENQUEUE' ? [event.item] : []));
  }
}

const completed: TaskOutcome = { kind: 'completed', runId: 'r', rounds: 1, head: 'h' };
const blocked: TaskOutcome = { kind: 'ended', runId: 'r', status: 'blocked', note: 'needs a key' };

/** Starts the batch with listening loops and queue; each task gets the branch `ralph/b/<id>` unless `branches` says. */
async function startBatch(
  tasks: BatchInput['tasks'],
  options: { parallel?: number; branches?: Record<string, string> } = {},
) {
  const batchMachine = await loadBatchMachine();
  const loops = new Loops();
  const queue = new Queue();
  const actor = createActor(
    batchMachine.provide({ actors: { runTask: loops.logic, mergeQueue: queue.standIn } }),
    {
      input: {
        tasks,
        parallel: options.parallel ?? 2,
        verifies: true,
        resolves: false,
        branches: options.branches ?? Object.fromEntries(tasks.map((t) => [t.id, `ralph/b/${t.id}`])),
      },
    },
  );
  const errors: unknown[] = [];
  actor.subscribe({ error: (error) => errors.push(error) });
  actor.start();
  /** Each task as `id status note`, the note left out while it has none. */
  const statuses = () =>
    actor
      .getSnapshot()
      .context.tasks.map((t) => [t.id, t.status, t.note].filter((part) => part !== null).join(' '));
  const runActors = () => Object.keys(actor.getSnapshot().children).filter((id) => id.startsWith('run-'));
  return { actor, loops, queue, errors, statuses, runActors };
}

describe('the batch starts loops', () => {
  test('at most N at once, the ready ones in order, each a child named after its task, started from the base', async () => {
    const { actor, loops, statuses, runActors, errors } = await startBatch(
      [
        { id: 'a', after: [] },
        { id: 'b', after: ['a'] },
        { id: 'c', after: [] },
        { id: 'd', after: [] },
      ],
      { parallel: 2 },
    );
    expect(actor.getSnapshot().value).toBe('running');
    expect(loops.started).toEqual([
      { taskId: 'a', startFromTarget: false },
      { taskId: 'c', startFromTarget: false },
    ]);
    expect(runActors()).toEqual(['run-a', 'run-c']);
    expect(statuses()).toEqual(['a running', 'b waiting', 'c running', 'd waiting']);
    expect(errors).toEqual([]);
  });

  test('a task after others starts from the target once they landed', async () => {
    const { actor, loops, runActors } = await startBatch(
      [
        { id: 'a', after: [] },
        { id: 'b', after: ['a'] },
      ],
      { parallel: 2 },
    );
    loops.finish('a', completed);
    actor.send({ type: 'MERGE.LANDED', taskId: 'a', head: 'h' });
    expect(loops.started).toEqual([
      { taskId: 'a', startFromTarget: false },
      { taskId: 'b', startFromTarget: true },
    ]);
    expect(runActors()).toEqual(['run-b']);
  });
});

describe('a loop that settles', () => {
  test('completed: its loop is stopped, its task queued, and its task and branch handed to the merge queue', async () => {
    const { loops, queue, statuses, runActors, errors } = await startBatch([{ id: 'a', after: [] }]);
    loops.finish('a', completed);
    expect(loops.stopped).toEqual(['a']);
    expect(runActors()).toEqual([]);
    expect(statuses()).toEqual(['a queued']);
    expect(queue.items()).toEqual([{ taskId: 'a', branch: 'ralph/b/a' }]);
    expect(errors).toEqual([]);
  });

  test('completed, with no branch given for its task: the queue gets an empty branch', async () => {
    const { loops, queue } = await startBatch([{ id: 'a', after: [] }], { branches: {} });
    loops.finish('a', completed);
    expect(queue.items()).toEqual([{ taskId: 'a', branch: '' }]);
  });

  test('ended: its loop is stopped and its task failed with the run status and note, or the failure alone', async () => {
    const { actor, loops, queue, runActors, errors } = await startBatch([
      { id: 'a', after: [] },
      { id: 'b', after: [] },
    ]);
    loops.finish('a', blocked);
    loops.finish('b', { kind: 'ended', runId: null, status: 'failed', note: 'Ralph round 1 child failed' });
    expect(loops.stopped).toEqual(['a', 'b']);
    expect(runActors()).toEqual([]);
    expect(queue.items()).toEqual([]);
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('settled');
    expect(done.output).toEqual({
      tasks: [
        { id: 'a', after: [], status: 'failed', note: 'blocked: needs a key', conflicts: [] },
        { id: 'b', after: [], status: 'failed', note: 'Ralph round 1 child failed', conflicts: [] },
      ],
      cancelReason: null,
    });
    expect(errors).toEqual([]);
  });

  test('cancelled on its own: its task is cancelled, and its note says so', async () => {
    const { actor, loops } = await startBatch([{ id: 'a', after: [] }]);
    loops.finish('a', { kind: 'cancelled' });
    expect(loops.stopped).toEqual(['a']);
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks[0]).toMatchObject({ status: 'cancelled', note: 'cancelled' });
  });
});

describe('the merge queue reports', () => {
  test('a landed task is landed, with no note', async () => {
    const { actor, loops, statuses } = await startBatch([{ id: 'a', after: [] }]);
    loops.finish('a', completed);
    actor.send({ type: 'MERGE.LANDED', taskId: 'a', head: 'h' });
    expect(statuses()).toEqual(['a landed']);
    expect(actor.getSnapshot().value).toBe('settled');
  });

  test('a task that needs review keeps the note and the conflicting files; the task after it is skipped', async () => {
    const { actor, loops } = await startBatch(
      [
        { id: 'a', after: [] },
        { id: 'b', after: ['a'] },
        { id: 'c', after: [] },
      ],
      { parallel: 1 },
    );
    loops.finish('a', completed);
    actor.send({
      type: 'MERGE.NEEDS_REVIEW',
      taskId: 'a',
      note: 'conflict in same.txt',
      files: ['same.txt'],
    });
    expect(actor.getSnapshot().context.tasks).toEqual([
      { id: 'a', after: [], status: 'needs-review', note: 'conflict in same.txt', conflicts: ['same.txt'] },
      { id: 'b', after: ['a'], status: 'skipped', note: 'a task it comes after did not land', conflicts: [] },
      { id: 'c', after: [], status: 'running', note: null, conflicts: [] },
    ]);
    expect(loops.started.map((s) => s.taskId)).toEqual(['a', 'c']);
  });
});

describe('cancelling a batch', () => {
  test('tells each running loop CANCEL once, cancels the waiting and queued tasks, stops the queue, keeps the reason', async () => {
    const { actor, loops, queue, statuses, runActors, errors } = await startBatch(
      [
        { id: 'a', after: [] },
        { id: 'b', after: [] },
        { id: 'c', after: [] },
        { id: 'd', after: [] },
      ],
      { parallel: 2 },
    );
    loops.finish('a', completed);
    expect(statuses()).toEqual(['a queued', 'b running', 'c running', 'd waiting']);
    actor.send({ type: 'CANCEL', reason: 'the batch budget ran out' });
    expect(actor.getSnapshot().value).toBe('cancelling');
    expect(loops.received).toEqual(['b CANCEL', 'c CANCEL']);
    expect(queue.stopped).toBe(true);
    expect(statuses()).toEqual([
      'a cancelled the batch was cancelled',
      'b running',
      'c running',
      'd cancelled the batch was cancelled',
    ]);
    loops.finish('b', { kind: 'cancelled' });
    expect(actor.getSnapshot().value).toBe('cancelling');
    expect(runActors()).toEqual(['run-c']);
    loops.finish('c', completed);
    expect(loops.stopped).toEqual(['a', 'b', 'c']);
    expect(runActors()).toEqual([]);
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('cancelled');
    expect(done.output?.cancelReason).toBe('the batch budget ran out');
    expect(statuses()).toEqual(['a', 'b', 'c', 'd'].map((id) => `${id} cancelled the batch was cancelled`));
    expect(queue.items()).toEqual([{ taskId: 'a', branch: 'ralph/b/a' }]);
    expect(errors).toEqual([]);
  });

  test('without a reason: the reason kept is "cancelled"', async () => {
    const { actor } = await startBatch([{ id: 'a', after: [] }]);
    actor.send({ type: 'CANCEL' });
    expect(actor.getSnapshot().context.cancelReason).toBe('cancelled');
  });
});

describe('the batch as it is started', () => {
  test('a resumed batch keeps each settled task as it was: status, note and conflicting files', async () => {
    const { actor, loops } = await startBatch([
      { id: 'a', after: [], status: 'needs-review', note: 'conflict in x.txt', conflicts: ['x.txt'] },
      { id: 'b', after: ['a'], status: 'skipped', note: 'a task it comes after did not land' },
      { id: 'c', after: [], status: 'landed' },
    ]);
    expect(loops.started).toEqual([]);
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('settled');
    expect(done.output).toEqual({
      tasks: [
        { id: 'a', after: [], status: 'needs-review', note: 'conflict in x.txt', conflicts: ['x.txt'] },
        {
          id: 'b',
          after: ['a'],
          status: 'skipped',
          note: 'a task it comes after did not land',
          conflicts: [],
        },
        { id: 'c', after: [], status: 'landed', note: null, conflicts: [] },
      ],
      cancelReason: null,
    });
  });

  test('it runs the merge queue machine itself as its child "mergeQueue", with its verify and resolver gates', async () => {
    const batchMachine = await loadBatchMachine();
    const loops = new Loops();
    const actor = createActor(batchMachine.provide({ actors: { runTask: loops.logic } }), {
      input: { tasks: [{ id: 'a', after: [] }], parallel: 1, verifies: false, resolves: true, branches: {} },
    });
    actor.start();
    const queue = actor.getSnapshot().children.mergeQueue as AnyActorRef | undefined;
    expect(queue?.getSnapshot().value).toBe('idle');
    expect(queue?.getSnapshot().context).toMatchObject({ verifies: false, resolves: true });
    expect(queue?.src).toBe('mergeQueue');
    actor.stop();
  });

  test('its loops must be provided: started bare, the batch fails and says where to run it', async () => {
    const batchMachine = await loadBatchMachine();
    const actor = createActor(batchMachine, {
      input: { tasks: [{ id: 'a', after: [] }], parallel: 1, verifies: true, resolves: false, branches: {} },
    });
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    expect(actor.getSnapshot().status).toBe('error');
    expect(errors).toEqual([
      new Error('batchMachine actor "runTask" was not provided; run the batch through the batch runner'),
    ]);
  });

  test('the chart is "batch", described as its diagrams show it', async () => {
    const batchMachine = await loadBatchMachine();
    expect(batchMachine.id).toBe('batch');
    expect(batchMachine.root.description).toBe(
      'Many Ralph loops in parallel git worktrees, at most N at once, each landing on the target through a verified merge queue.',
    );
  });
});
