import { describe, expect, test } from 'vitest';
import type { AnyActorRef } from 'xstate';
import { waitFor } from 'xstate';
import { batchMachine } from '../../src/machines/batch.machine.js';
import { mergeQueueMachine } from '../../src/machines/merge-queue.machine.js';
import {
  completed,
  type MergeScript,
  queueIdle,
  scriptedMergeQueue,
  startBatch,
  startQueue,
  startQueueUnder,
  type Taken,
} from './batch-harness.js';
import {
  BATCH_INPUTS,
  batchPaths,
  describePath,
  QUEUE_INPUTS,
  queuePaths,
  replayBatchPath,
  replayQueuePath,
} from './batch-model.js';
import { CoverageLedger, exercisedBy } from './coverage.js';
import { machineSource, statelyImportProblems } from './stately-import.js';

// Every scenario runs the real machines (the batch, and the merge queue it invokes) with scripted loops and merge
// steps; the last tests check that together they went through every state node and every transition of each.
const batchLedger = new CoverageLedger(batchMachine);
const queueLedger = new CoverageLedger(mergeQueueMachine);
const tally = (taken: Taken) => {
  batchLedger.add(exercisedBy(taken.batch));
  queueLedger.add(exercisedBy(taken.queue));
};

describe('the batch machine', () => {
  test('independent tasks all land, never more than N loops at once, merges one at a time in finishing order', async () => {
    const { actor, loops, mergeLog, taken } = startBatch([{ id: 'a' }, { id: 'b' }, { id: 'c' }], {
      parallel: 2,
    });
    expect(loops.running()).toEqual(['a', 'b']);
    loops.finish('b', completed('b'));
    await queueIdle(actor);
    expect(loops.running()).toEqual(['a', 'c']);
    loops.finish('a', completed('a'));
    loops.finish('c', completed('c'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('settled');
    expect(done.output?.tasks.map((t) => [t.id, t.status])).toEqual([
      ['a', 'landed'],
      ['b', 'landed'],
      ['c', 'landed'],
    ]);
    expect(loops.maxAlive).toBe(2);
    expect(mergeLog.filter((l) => l.startsWith('land'))).toEqual(['land b', 'land a', 'land c']);
    tally(taken);
  });

  test('a task comes after another only once it landed, and starts from the target', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'b', after: ['a'] }, { id: 'a' }], { parallel: 4 });
    expect(loops.running()).toEqual(['a']);
    loops.finish('a', completed('a'));
    await waitFor(actor, () => loops.running().includes('b'));
    expect(loops.started).toEqual([
      { taskId: 'a', startFromTarget: false },
      { taskId: 'b', startFromTarget: true },
    ]);
    loops.finish('b', completed('b'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks.every((t) => t.status === 'landed')).toBe(true);
    tally(taken);
  });

  test('a resumed batch keeps its settled tasks: a landed one is not run again, and the task after it starts', async () => {
    const { actor, loops, taken } = startBatch([
      { id: 'a', status: 'landed' },
      { id: 'b', after: ['a'] },
      { id: 'c', status: 'needs-review' },
    ]);
    expect(loops.started).toEqual([{ taskId: 'b', startFromTarget: true }]);
    loops.finish('b', completed('b'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks.map((t) => t.status)).toEqual(['landed', 'landed', 'needs-review']);
    tally(taken);
  });

  test('a conflict is needs-review naming the file, and the task after it is skipped, never started', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }, { id: 'b', after: ['a'] }], {
      merges: { a: 'conflicts' },
    });
    loops.finish('a', completed('a'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks).toEqual([
      { id: 'a', after: [], status: 'needs-review', note: 'conflict in same.txt', conflicts: ['same.txt'] },
      { id: 'b', after: ['a'], status: 'skipped', note: 'a task it comes after did not land', conflicts: [] },
    ]);
    expect(loops.started.map((s) => s.taskId)).toEqual(['a']);
    tally(taken);
  });

  test('a loop that ends blocked, budget-limited or failed fails its task and never joins the queue', async () => {
    const { actor, loops, mergeLog, taken } = startBatch([{ id: 'a' }]);
    loops.finish('a', { kind: 'ended', runId: 'r', status: 'blocked', note: 'needs a key' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks[0]).toMatchObject({ status: 'failed', note: 'blocked: needs a key' });
    expect(mergeLog).toEqual([]);
    tally(taken);
    const crashed = startBatch([{ id: 'a' }]);
    crashed.loops.finish('a', {
      kind: 'ended',
      runId: 'r',
      status: 'failed',
      note: 'Ralph round 1 child failed',
    });
    const failed = await waitFor(crashed.actor, (s) => s.status === 'done');
    expect(failed.output?.tasks[0]).toMatchObject({ status: 'failed', note: 'Ralph round 1 child failed' });
  });

  test('cancel tells every running loop, cancels what has not started, and ends once the loops settled', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }, { id: 'b' }, { id: 'c' }], { parallel: 2 });
    actor.send({ type: 'CANCEL', reason: 'interrupted' });
    expect(actor.getSnapshot().value).toBe('cancelling');
    expect(loops.cancelled.sort()).toEqual(['a', 'b']);
    loops.finish('a', { kind: 'cancelled' });
    expect(actor.getSnapshot().value).toBe('cancelling');
    loops.finish('b', completed('b'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('cancelled');
    expect(done.output?.cancelReason).toBe('interrupted');
    expect(done.output?.tasks.map((t) => t.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    tally(taken);
  });

  test('a task given queued (its branch fixed by hand, ralph batch --land) is merged at once; no loop of it starts', async () => {
    const { actor, loops, mergeLog, taken } = startBatch([
      { id: 'a', status: 'needs-review' },
      { id: 'b', status: 'queued' },
    ]);
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.value).toBe('settled');
    expect(done.output?.tasks.map((t) => t.status)).toEqual(['needs-review', 'landed']);
    expect(loops.started).toEqual([]);
    expect(mergeLog).toEqual(['bring b', 'verify b', 'land b']);
    tally(taken);
    const conflicting = startBatch([{ id: 'b', status: 'queued' }], { merges: { b: 'conflicts' } });
    const again = await waitFor(conflicting.actor, (s) => s.status === 'done');
    expect(again.output?.tasks[0]).toMatchObject({ status: 'needs-review', conflicts: ['same.txt'] });
  });

  test('a loop waiting for an answer holds no slot; answered, it takes the next free one before tasks not started', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }, { id: 'b' }, { id: 'c' }], { parallel: 1 });
    expect(loops.running()).toEqual(['a']);
    loops.tell({ type: 'TASK.ASKED', taskId: 'a', question: 'which key?' });
    expect(actor.getSnapshot().context.tasks[0]).toMatchObject({
      status: 'awaiting-answer',
      note: 'which key?',
    });
    expect(loops.running()).toEqual(['a', 'b']);
    loops.tell({ type: 'TASK.ANSWERED', taskId: 'a' });
    expect(actor.getSnapshot().context.tasks[0]?.status).toBe('answered');
    expect(loops.slots).toEqual([]);
    loops.finish('b', completed('b'));
    // b's slot goes to a, not to c, which has not started.
    expect(loops.slots).toEqual(['a']);
    expect(loops.running()).toEqual(['a']);
    expect(actor.getSnapshot().context.tasks[0]).toMatchObject({ status: 'running', note: null });
    loops.tell({ type: 'TASK.ASKED', taskId: 'a', question: 'and the region?' });
    expect(loops.running()).toEqual(['a', 'c']);
    loops.tell({ type: 'TASK.ANSWERED', taskId: 'a' });
    // No slot freed before its wait would have run out: it went on beyond --parallel.
    loops.tell({ type: 'TASK.RESUMED', taskId: 'a' });
    const statuses = actor.getSnapshot().context.tasks.map((t) => t.status);
    expect([statuses[0], statuses[2]]).toEqual(['running', 'running']);
    loops.finish('a', completed('a'));
    loops.finish('c', completed('c'));
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks.map((t) => t.status)).toEqual(['landed', 'landed', 'landed']);
    expect(loops.maxAlive).toBe(2);
    tally(taken);
  });

  test('cancel reaches a loop that waits for an answer, and the batch ends once it settled', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }, { id: 'b' }], { parallel: 1 });
    loops.tell({ type: 'TASK.ASKED', taskId: 'a', question: 'which key?' });
    loops.tell({ type: 'TASK.ANSWERED', taskId: 'a' });
    actor.send({ type: 'CANCEL', reason: 'interrupted' });
    expect(loops.cancelled.sort()).toEqual(['a', 'b']);
    loops.finish('b', { kind: 'cancelled' });
    expect(actor.getSnapshot().value).toBe('cancelling');
    loops.finish('a', { kind: 'cancelled' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks.map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    tally(taken);
  });

  test('a loop waiting for an answer that ends unanswered fails its task as blocked', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }]);
    loops.tell({ type: 'TASK.ASKED', taskId: 'a', question: 'which key?' });
    loops.finish('a', { kind: 'ended', runId: 'r', status: 'blocked', note: 'which key? (nobody answered)' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks[0]).toMatchObject({
      status: 'failed',
      note: 'blocked: which key? (nobody answered)',
    });
    tally(taken);
  });

  test('a loop cancelled on its own (its run settled cancelled) is a cancelled task', async () => {
    const { actor, loops, taken } = startBatch([{ id: 'a' }]);
    loops.finish('a', { kind: 'cancelled' });
    const done = await waitFor(actor, (s) => s.status === 'done');
    expect(done.output?.tasks[0]?.status).toBe('cancelled');
    tally(taken);
  });
});

describe('the merge queue', () => {
  const outcomes: [MergeScript, boolean, string][] = [
    ['lands', true, 'MERGE.LANDED'],
    ['lands', false, 'MERGE.LANDED'],
    ['conflicts', true, 'MERGE.NEEDS_REVIEW'],
    ['fails-verify', true, 'MERGE.NEEDS_REVIEW'],
    ['rebase-throws', true, 'MERGE.NEEDS_REVIEW'],
    ['verify-throws', true, 'MERGE.NEEDS_REVIEW'],
    ['target-moved', true, 'MERGE.NEEDS_REVIEW'],
    ['resolved', true, 'MERGE.LANDED'],
    ['unresolved', true, 'MERGE.NEEDS_REVIEW'],
    ['resolver-throws', true, 'MERGE.NEEDS_REVIEW'],
  ];
  test.each(outcomes)('a merge that %s (verify gate: %s) reports %s', async (script, verifies, report) => {
    const { queue, reports, taken } = startQueue({ t: script }, verifies, script !== 'conflicts');
    queue.send({ type: 'ENQUEUE', item: { taskId: 't', branch: 'ralph/b/t' } });
    await waitFor(queue as AnyActorRef, (s) => s.matches('idle') && s.context.queue.length === 0);
    expect(reports.map((r) => r.type)).toEqual([report]);
    if (script === 'fails-verify')
      expect(reports[0]).toMatchObject({ note: expect.stringContaining('FAIL combined') });
    queueLedger.add(exercisedBy(taken));
  });

  test('tasks queued during a merge wait their turn: one merge at a time, in queue order', async () => {
    const { queue, reports, taken } = startQueue({});
    for (const id of ['x', 'y', 'z']) queue.send({ type: 'ENQUEUE', item: { taskId: id, branch: id } });
    await waitFor(queue as AnyActorRef, (s) => s.matches('idle') && s.context.queue.length === 0);
    expect(reports.map((r) => r.taskId)).toEqual(['x', 'y', 'z']);
    queueLedger.add(exercisedBy(taken));
  });

  test('a queue started with tasks merges them first, one at a time, in the order given', async () => {
    const log: string[] = [];
    const { queue, reports, taken } = startQueueUnder(scriptedMergeQueue({ y: 'conflicts' }, log), {
      verifies: false,
      resolves: false,
      queue: [
        { taskId: 'x', branch: 'x' },
        { taskId: 'y', branch: 'y' },
      ],
    });
    await waitFor(queue as AnyActorRef, (s) => s.matches('idle') && s.context.queue.length === 0);
    expect(reports.map((r) => [r.type, r.taskId])).toEqual([
      ['MERGE.LANDED', 'x'],
      ['MERGE.NEEDS_REVIEW', 'y'],
    ]);
    expect(log).toEqual(['bring x', 'land x', 'bring y']);
    queueLedger.add(exercisedBy(taken));
  });

  test('cancel ends the queue, idle or in the middle of a merge, and nothing lands after it', async () => {
    const idle = startQueue({});
    idle.queue.send({ type: 'CANCEL' });
    expect((idle.queue as AnyActorRef).getSnapshot().value).toBe('cancelled');
    queueLedger.add(exercisedBy(idle.taken));
    const busy = startQueue({});
    busy.queue.send({ type: 'ENQUEUE', item: { taskId: 't', branch: 't' } });
    busy.queue.send({ type: 'CANCEL' });
    await waitFor(busy.queue as AnyActorRef, (s) => s.status === 'done');
    expect(busy.reports).toEqual([]);
    queueLedger.add(exercisedBy(busy.taken));
  });

  test.each([
    ['verify-hangs', 'verifying'],
    ['land-hangs', 'landing'],
    ['resolver-hangs', 'resolvingConflicts'],
  ] as const)('cancel while a merge is %s stops it there, and nothing is reported', async (script, state) => {
    const { queue, reports, taken } = startQueue({ t: script }, true, true);
    queue.send({ type: 'ENQUEUE', item: { taskId: 't', branch: 't' } });
    await waitFor(queue as AnyActorRef, (s) => s.value === state);
    queue.send({ type: 'CANCEL' });
    expect((queue as AnyActorRef).getSnapshot().value).toBe('cancelled');
    expect(reports).toEqual([]);
    queueLedger.add(exercisedBy(taken));
  });
});

// Generated paths (xstate/graph): the shortest path to every state of each model, replayed against the real machine
// with each of its actors driven by the path; they alone must go through every state node and every transition.
const generatedBatchLedger = new CoverageLedger(batchMachine);
const generatedQueueLedger = new CoverageLedger(mergeQueueMachine);

for (const { name, input } of BATCH_INPUTS) {
  const paths = batchPaths(input);
  describe(`the batch model, ${name} (${paths.length} paths)`, () => {
    for (const path of paths)
      test(describePath(path), async () => {
        generatedBatchLedger.add(exercisedBy(await replayBatchPath(input, path)));
      });
  });
}

for (const input of QUEUE_INPUTS) {
  const paths = queuePaths(input);
  describe(`the merge queue model, verify ${input.verifies}, resolver ${input.resolves} (${paths.length} paths)`, () => {
    for (const path of paths)
      test(describePath(path), async () => {
        generatedQueueLedger.add(exercisedBy(await replayQueuePath(input, path)));
      });
  });
}

test.each([
  ['batch', generatedBatchLedger],
  ['merge queue', generatedQueueLedger],
])(
  'the generated paths go through every state node and every transition of the %s machine',
  (name, ledger) => {
    const { states, transitions, uncoveredStates, uncoveredTransitions } = ledger.summary();
    console.log(
      `${name} model coverage (generated paths): states ${states.covered}/${states.total}, transitions ${transitions.covered}/${transitions.total}`,
    );
    expect(uncoveredStates).toEqual([]);
    expect(uncoveredTransitions).toEqual([]);
  },
);

test.each([
  ['batch', batchLedger],
  ['merge queue', queueLedger],
])('the scenarios go through every state node and every transition of the %s machine', (_name, ledger) => {
  const { states, transitions, uncoveredStates, uncoveredTransitions } = ledger.summary();
  console.log(
    `${_name} coverage: states ${states.covered}/${states.total}, transitions ${transitions.covered}/${transitions.total}`,
  );
  expect(states.total).toBeGreaterThan(3);
  expect(uncoveredStates).toEqual([]);
  expect(uncoveredTransitions).toEqual([]);
});

describe.each([
  ['batch', batchMachine, 'src/machines/batch.machine.ts'],
  ['merge queue', mergeQueueMachine, 'src/machines/merge-queue.machine.ts'],
] as const)('the %s machine is written as the run machine is', (_name, machine, file) => {
  test("its source is what Stately's import reads: one inline config of literals", () => {
    expect(statelyImportProblems(machineSource(file))).toEqual([]);
  });

  test('every state has a description, every invoke an id named after the actor it runs', () => {
    for (const node of Object.values(machine.root.states)) {
      expect(node.description, `${node.key} has a description`).toBeTruthy();
      for (const invoke of node.invoke) expect(invoke.id).toBe(invoke.src);
    }
  });
});
