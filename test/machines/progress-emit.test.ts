import { describe, expect, test } from 'vitest';
import { type AnyActorRef, createActor, emit, type InspectionEvent, setup, transition } from 'xstate';
import { emitProgress } from '../../src/machines/progress-emit.js';

type Said = { type: 'said'; count: number; by: number };

// A small chart that emits on entry (before its actor runs) and on events, with an expression, params and an
// object, built once with XState's `emit` and once with `emitProgress`: listeners, inspectors and a pure transition
// must get the same from both.
const chartWith = (emitOf: typeof emit, built: { count: number }) =>
  setup({
    types: {
      context: {} as { count: number },
      events: {} as { type: 'ADD'; by: number } | { type: 'DONE' },
      emitted: {} as Said | { type: 'ended' },
    },
    actions: {
      say: emitOf(({ context }, params: { by: number }) => {
        built.count += 1;
        return { type: 'said' as const, count: context.count, by: params.by };
      }),
      end: emitOf({ type: 'ended' as const }),
    },
  }).createMachine({
    id: 'chart',
    context: { count: 0 },
    initial: 'on',
    entry: { type: 'say', params: { by: 0 } },
    states: {
      on: {
        on: {
          ADD: { actions: { type: 'say', params: ({ event }) => ({ by: event.by }) } },
          DONE: { target: 'off', actions: 'end' },
        },
      },
      off: { type: 'final' },
    },
  });

const events = [{ type: 'ADD', by: 2 }, { type: 'ADD', by: 3 }, { type: 'DONE' }] as const;

/** Runs the chart with a wildcard listener and an inspector; what each got. */
function heard(emitOf: typeof emit) {
  const emitted: unknown[] = [];
  const actions: unknown[] = [];
  const actor: AnyActorRef = createActor(chartWith(emitOf, { count: 0 }), {
    inspect: (event: InspectionEvent) => {
      if (event.type === '@xstate.action') actions.push(event.action);
    },
  });
  actor.on('*', (event: unknown) => emitted.push(event));
  actor.start();
  for (const event of events) actor.send(event);
  return { emitted, actions };
}

describe('emitProgress', () => {
  test("gives listeners and inspectors what XState's emit gives them", () => {
    const ours = heard(emitProgress);
    expect(ours).toEqual(heard(emit));
    expect(ours.emitted).toEqual([
      { type: 'said', count: 0, by: 0 },
      { type: 'said', count: 0, by: 2 },
      { type: 'said', count: 0, by: 3 },
      { type: 'ended' },
    ]);
  });

  test('gives a listener alone every event, the entry one included', () => {
    const emitted: unknown[] = [];
    const actor = createActor(chartWith(emitProgress, { count: 0 }));
    actor.on('said', (event) => emitted.push(event));
    actor.start();
    actor.send({ type: 'ADD', by: 5 });
    expect(emitted).toEqual([
      { type: 'said', count: 0, by: 0 },
      { type: 'said', count: 0, by: 5 },
    ]);
  });

  test('returns the same emit actions from a pure transition (what a replay reads)', () => {
    const emittedBy = (emitOf: typeof emit) => {
      const machine = chartWith(emitOf, { count: 0 });
      const [, actions] = transition(machine, machine.resolveState({ value: 'on', context: { count: 1 } }), {
        type: 'ADD',
        by: 7,
      });
      return actions.map((action) => ({ type: action.type, params: action.params }));
    };
    expect(emittedBy(emitProgress)).toEqual(emittedBy(emit));
    expect(emittedBy(emitProgress)).toEqual([
      { type: 'xstate.emit', params: { event: { type: 'said', count: 1, by: 7 } } },
    ]);
  });

  test('builds no event for a running actor that no one listens to nor inspects', () => {
    const built = { count: 0 };
    const actor = createActor(chartWith(emitProgress, built)).start();
    // The entry's event is built before the actor runs (its listeners may come between its creation and its start).
    expect(built.count).toBe(1);
    actor.send({ type: 'ADD', by: 2 });
    actor.send({ type: 'ADD', by: 3 });
    expect(built.count).toBe(1);
    const listened = createActor(chartWith(emitProgress, built));
    listened.on('said', () => {});
    listened.start();
    listened.send({ type: 'ADD', by: 2 });
    expect(built.count).toBe(3);
  });
});
