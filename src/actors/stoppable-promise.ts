import type { AnyActorRef, EventObject, PromiseActorLogic, PromiseSnapshot } from 'xstate';

// XState's own event types for a promise actor's settling (xstate/src/actors/promise.ts), so that an invoke of this
// logic reads, in the inspector and in a recording, exactly as one of `fromPromise`.
const RESOLVE = 'xstate.promise.resolve';
const REJECT = 'xstate.promise.reject';
const STOP = 'xstate.stop';
/** Marks a snapshot restored from a persisted one (see `restored`). */
const RESTORED = Symbol('restored');

/** The actor system's relay, as `fromPromise` sends its settling (the event's source is the actor itself). */
interface Relay {
  _relay?: (source: AnyActorRef, target: AnyActorRef, event: EventObject) => void;
}

/** Sends the actor's parent an event while the actor runs (dropped once it was stopped or settled). */
export type TellParent = (event: EventObject) => void;

/** How an event reaches the parent, from the actor (as XState's own `sendParent` relays it). */
function tellParent(self: AnyActorRef, system: unknown, event: EventObject): void {
  const parent = (self as { _parent?: AnyActorRef })._parent;
  if (parent === undefined || self.getSnapshot().status !== 'active') return;
  const relay = (system as Relay)._relay;
  if (relay === undefined) parent.send(event);
  else relay.call(system, self, parent, event);
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
 * settled. A round's actor runs on the round's one AbortController (the child's) this way, where with `fromPromise`
 * each round made two and linked them (BENCHMARKS.md, issue 21). `run` may tell its parent an event on the way
 * (`tell`: the round's `CHILD_STARTED`), so that one actor does what took two. Snapshots, events and persistence are
 * `fromPromise`'s, but for two: with `restored`, a snapshot restored while the work ran rejects with its error instead
 * of running the work again; with `keep`, a running actor's snapshot holds only the part of its input that `stop` and
 * `restored` need (a round's actor: its run and round, not the child's prompt and schema, which a suspended run would
 * otherwise hold all the while).
 */
export function stoppablePromise<TOutput, TInput, TKept = TInput>(
  run: (input: TInput, tell: TellParent) => PromiseLike<TOutput>,
  stop: (kept: TKept) => void,
  restored?: (kept: TKept) => Error,
  keep?: (input: TInput) => TKept,
): PromiseActorLogic<TOutput, TInput> {
  // The whole input from the initial snapshot to the start, when the snapshot keeps only part of it.
  const given = new WeakMap<object, TInput>();
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
          stop(snapshot.input as unknown as TKept);
          return { ...snapshot, status: 'stopped', input: undefined };
        default:
          return snapshot;
      }
    },
    start: (snapshot, { self, system }) => {
      if (snapshot.status !== 'active') return;
      // Synchronously, as `fromPromise` does: what `run` does before its first await is done when start returns.
      const tell: TellParent = (event) => tellParent(self, system, event);
      const input = given.get(snapshot) ?? (snapshot.input as TInput);
      given.delete(snapshot);
      // The actor keeps the input it was created with (its `options`, read only to create its snapshot and its init
      // event, both done by now): with `keep`, it lets it go, so that only `run` holds it, for as long as it needs it.
      if (keep !== undefined) (self as unknown as { options: { input?: unknown } }).options.input = undefined;
      // A snapshot restored while its work ran: the work was another process's, and `restored` says why it is lost.
      const work =
        restored !== undefined && RESTORED in snapshot
          ? Promise.reject(restored(snapshot.input as unknown as TKept))
          : Promise.resolve(run(input, tell));
      work.then(
        (data) => settle(self, system, { type: RESOLVE, data }),
        (data) => settle(self, system, { type: REJECT, data }),
      );
    },
    getInitialSnapshot: (_, input): PromiseSnapshot<TOutput, TInput> => {
      if (keep === undefined) return { status: 'active', output: undefined, error: undefined, input };
      const snapshot = { status: 'active' as const, output: undefined, error: undefined, input: keep(input) };
      given.set(snapshot, input);
      return snapshot as unknown as PromiseSnapshot<TOutput, TInput>;
    },
    getPersistedSnapshot: (snapshot) => snapshot,
    // Marked by a symbol, which a persisted snapshot (JSON) never carries.
    restoreSnapshot: (snapshot) =>
      ({ ...(snapshot as object), [RESTORED]: true }) as unknown as PromiseSnapshot<TOutput, TInput>,
  };
}
