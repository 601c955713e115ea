import { describe, expect, test } from 'vitest';
import { type AnyActorRef, assign, createActor, setup } from 'xstate';
import { assignContext } from '../../src/machines/context-assign.js';

// A small chart of nested states, tags and function, params and object assigns, built once with XState's `assign`
// and once with `assignContext`: every snapshot the two take must read the same.
const chartWith = (assignOf: typeof assign) =>
  setup({
    types: {
      context: {} as { count: number; last: string | null; flag: boolean },
      events: {} as { type: 'ADD'; by: number } | { type: 'NAME'; name: string } | { type: 'FLAG' },
    },
    actions: {
      add: assignOf(({ context }, params: { by: number }) => ({ count: context.count + params.by })),
      name: assignOf(({ event }) => ({ last: event.type === 'NAME' ? event.name : null })),
      flag: assignOf({ flag: true }),
    },
  }).createMachine({
    id: 'chart',
    context: { count: 0, last: null, flag: false },
    initial: 'outer',
    states: {
      outer: {
        tags: ['busy'],
        initial: 'inner',
        states: {
          inner: {
            tags: ['inside'],
            on: {
              ADD: { actions: { type: 'add', params: ({ event }) => ({ by: event.by }) } },
              NAME: { target: 'named', actions: 'name' },
            },
          },
          named: { on: { FLAG: { target: '#chart.done', actions: ['flag', 'name'] } } },
        },
      },
      done: { type: 'final', tags: ['settled'] },
    },
  });

const events = [
  { type: 'ADD', by: 2 },
  { type: 'ADD', by: 3 },
  { type: 'NAME', name: 'x' },
  { type: 'FLAG' },
] as const;

/** What a host reads of a snapshot. */
const read = (actor: AnyActorRef) => {
  const snapshot = actor.getSnapshot();
  return {
    value: snapshot.value,
    context: snapshot.context,
    // In the same order: a recording and the inspector show the context as JSON.
    contextKeys: Object.keys(snapshot.context),
    // A snapshot of the same keys, in the same order, as XState's own (context-assign.ts copies it as a literal).
    snapshotKeys: Object.keys(snapshot),
    tags: [...snapshot.tags].sort(),
    status: snapshot.status,
    children: Object.keys(snapshot.children),
    persisted: actor.getPersistedSnapshot(),
  };
};

describe('assignContext', () => {
  test("gives every snapshot XState's assign gives: state value, context, tags, status, children, persisted", () => {
    const theirs = createActor(chartWith(assign)).start();
    const ours = createActor(chartWith(assignContext)).start();
    expect(read(ours)).toEqual(read(theirs));
    for (const event of events) {
      theirs.send(event);
      ours.send(event);
      expect(read(ours), event.type).toEqual(read(theirs));
    }
    expect(ours.getSnapshot().context).toEqual({ count: 5, last: null, flag: true });
    expect(ours.getSnapshot().hasTag('settled')).toBe(true);
  });

  test('leaves the snapshot before an assignment as it was, and gives a new context object', () => {
    const actor = createActor(chartWith(assignContext)).start();
    const before = actor.getSnapshot();
    const contextBefore = before.context;
    actor.send({ type: 'ADD', by: 4 });
    const after = actor.getSnapshot();
    expect(after).not.toBe(before);
    expect(after.context).not.toBe(contextBefore);
    expect(before.context).toEqual({ count: 0, last: null, flag: false });
    expect(after.context.count).toBe(4);
    expect(after.matches({ outer: 'inner' })).toBe(true);
  });

  test('keeps the snapshot, context and all, for an assignment that changes nothing', () => {
    const theirs = createActor(chartWith(assign)).start();
    const actor = createActor(chartWith(assignContext)).start();
    actor.send({ type: 'ADD', by: 4 });
    theirs.send({ type: 'ADD', by: 4 });
    const before = actor.getSnapshot();
    actor.send({ type: 'ADD', by: 0 });
    theirs.send({ type: 'ADD', by: 0 });
    expect(actor.getSnapshot().context).toBe(before.context);
    expect(read(actor)).toEqual(read(theirs));
  });

  test("is XState's assign action, with its type and assignment, resolved without recomputing the state value", () => {
    const assignment = () => ({ count: 1 });
    const ours = assignContext(assignment) as unknown as {
      type: string;
      assignment: unknown;
      resolve: unknown;
    };
    const theirs = assign(assignment) as unknown as { type: string; resolve: unknown };
    expect(ours.type).toBe('xstate.assign');
    expect(ours.assignment).toBe(assignment);
    expect(ours.resolve).not.toBe(theirs.resolve);
    // An object of property assigners keeps XState's own resolution.
    const objectForm = assignContext({ count: 1 }) as unknown as { resolve: unknown };
    expect(objectForm.resolve).toBe(theirs.resolve);
  });
});
