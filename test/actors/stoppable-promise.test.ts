import { describe, expect, it } from 'vitest';
import {
  type AnyActorLogic,
  assign,
  createActor,
  fromPromise,
  type InspectionEvent,
  setup,
  toPromise,
} from 'xstate';
import { stoppablePromise } from '../../src/actors/stoppable-promise.js';

/** A machine that invokes `work` with its input and ends with what it resolved, or with its error; STOP leaves first. */
function machineOf(work: AnyActorLogic) {
  return setup({ actors: { work } }).createMachine({
    id: 'm',
    initial: 'working',
    context: { result: null as unknown },
    output: ({ context }) => context.result,
    states: {
      working: {
        invoke: {
          id: 'work',
          src: 'work',
          input: { n: 1 },
          onDone: { target: 'done', actions: assign({ result: ({ event }) => event.output }) },
          onError: { target: 'done', actions: assign({ result: ({ event }) => event.error }) },
        },
        on: { STOP: 'done' },
      },
      done: { type: 'final' },
    },
  });
}

/** Runs the machine to its end; every event it and its invoke took, with whether the invoke sent it to itself. */
async function eventsOf(work: AnyActorLogic, stopFirst = false) {
  const events: string[] = [];
  const actor = createActor(machineOf(work), {
    inspect: (event: InspectionEvent) => {
      if (event.type === '@xstate.event')
        events.push(`${event.event.type}${event.sourceRef === event.actorRef ? ' (from itself)' : ''}`);
    },
  });
  actor.start();
  if (stopFirst) actor.send({ type: 'STOP' });
  return { output: await toPromise(actor), events };
}

describe('a stoppable promise actor', () => {
  it('settles as fromPromise does: the same events, from the same source, and the same output', async () => {
    const run = async (input: { n: number }) => input.n + 1;
    const mine = await eventsOf(stoppablePromise(run, () => {}));
    const theirs = await eventsOf(fromPromise(({ input }: { input: { n: number } }) => run(input)));
    expect(mine).toEqual(theirs);
    expect(mine.output).toBe(2);
    expect(mine.events).toContain('xstate.promise.resolve (from itself)');
  });

  it('fails as fromPromise does', async () => {
    const failure = new Error('no');
    const run = async () => {
      throw failure;
    };
    const mine = await eventsOf(stoppablePromise(run, () => {}));
    expect(mine).toEqual(await eventsOf(fromPromise(run)));
    expect(mine.output).toBe(failure);
  });

  it('runs its work synchronously on start, and calls stop with its input when its state is left first', async () => {
    const calls: string[] = [];
    const work = stoppablePromise(
      (input: { n: number }) => {
        calls.push(`run ${input.n}`);
        return new Promise<number>(() => {});
      },
      (input) => calls.push(`stop ${input.n}`),
    );
    const { output } = await eventsOf(work, true);
    expect(output).toBeNull();
    expect(calls).toEqual(['run 1', 'stop 1']);
  });

  it('is not stopped once it settled: leaving its state after does not call stop', async () => {
    const calls: string[] = [];
    await eventsOf(
      stoppablePromise(
        async () => 1,
        () => calls.push('stop'),
      ),
    );
    expect(calls).toEqual([]);
  });

  it('with keep, runs on its whole input while its snapshot and its actor hold only the part kept for stop', async () => {
    const calls: string[] = [];
    const work = stoppablePromise(
      (input: { n: number }) => {
        calls.push(`run ${input.n}`);
        return new Promise<number>(() => {});
      },
      (kept: string) => calls.push(`stop ${kept}`),
      undefined,
      (input) => `kept ${input.n}`,
    );
    const actor = createActor(machineOf(work));
    actor.start();
    const child = actor.getSnapshot().children.work;
    expect(child?.getSnapshot().input).toBe('kept 1');
    expect((child as unknown as { options: { input?: unknown } }).options.input).toBeUndefined();
    actor.send({ type: 'STOP' });
    expect(calls).toEqual(['run 1', 'stop kept 1']);
  });

  it('tells its parent an event while it runs, from itself', async () => {
    const told: string[] = [];
    const work = stoppablePromise<number, { n: number }>(
      async (_, tell) => {
        tell({ type: 'TOLD' });
        return 1;
      },
      () => {},
    );
    const actor = createActor(machineOf(work), {
      inspect: (event: InspectionEvent) => {
        if (event.type === '@xstate.event' && event.event.type === 'TOLD')
          told.push(event.sourceRef === event.actorRef ? 'from the parent' : 'from the actor');
      },
    });
    actor.start();
    await toPromise(actor);
    expect(told).toEqual(['from the actor']);
  });
});
