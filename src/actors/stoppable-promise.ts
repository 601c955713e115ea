import type { AnyActorRef, EventObject, PromiseActorLogic, PromiseSnapshot } from 'xstate';

// XState's own event types for a promise actor's settling (xstate/src/actors/promise.ts), so that an invoke of this
// logic reads, in the inspector and in a recording, exactly as one of `fromPromise`.
const RESOLVE = 'xstate.promise.resolve';
const REJECT = 'xstate.promise.reject';
const STOP = 'xstate.stop';

/** The actor system's relay, as `fromPromise` sends its settling (the event's source is the actor itself). */
interface Relay {
  _relay?: (source: AnyActorRef, target: AnyActorRef, event: EventObject) => void;
}

/** A promise actor's settling event: its value or its failure. */
interface Settled extends EventObject {
  data: unknown;
}

/** How a settled body's value or failure reaches the actor, unless it was stopped first. */
function settle(self: AnyActorRef, system: unknown, event: Settled): void {
  if (self.getSnapshot().status !== 'active') return;
  const relay = (system as Relay)._relay;
  if (relay === undefined) self.send(event);
  else relay.call(system, self, self, event);
}

/**
 * Promise actor logic like XState's `fromPromise`, without the AbortController `fromPromise` makes for every actor:
 * `run` does the work, and `stop` is called with the same input when the invoking state is left before the work
 * settled. Two actors a round run on a round's one AbortController (the child's) this way, where with `fromPromise`
 * each round made three and linked them (BENCHMARKS.md, issue 21). Snapshots, events and persistence are
 * `fromPromise`'s.
 */
export function stoppablePromise<TOutput, TInput>(
  run: (input: TInput) => PromiseLike<TOutput>,
  stop: (input: TInput) => void,
): PromiseActorLogic<TOutput, TInput> {
  return {
    config: run,
    transition: (snapshot, event) => {
      if (snapshot.status !== 'active') return snapshot;
      switch (event.type) {
        case RESOLVE:
          return { ...snapshot, status: 'done', output: event.data as TOutput, input: undefined };
        case REJECT:
          return { ...snapshot, status: 'error', error: event.data, input: undefined };
        case STOP:
          stop(snapshot.input as TInput);
          return { ...snapshot, status: 'stopped', input: undefined };
        default:
          return snapshot;
      }
    },
    start: (snapshot, { self, system }) => {
      if (snapshot.status !== 'active') return;
      // Synchronously, as `fromPromise` does: what `run` does before its first await is done when start returns.
      Promise.resolve(run(snapshot.input as TInput)).then(
        (data) => settle(self, system, { type: RESOLVE, data }),
        (data) => settle(self, system, { type: REJECT, data }),
      );
    },
    getInitialSnapshot: (_, input): PromiseSnapshot<TOutput, TInput> => ({
      status: 'active',
      output: undefined,
      error: undefined,
      input,
    }),
    getPersistedSnapshot: (snapshot) => snapshot,
    restoreSnapshot: (snapshot) => snapshot as PromiseSnapshot<TOutput, TInput>,
  };
}
