import { type AnyActorScope, type AnyMachineSnapshot, type EventObject, emit } from 'xstate';

// XState's `emit` builds its event, a params object, an executor record, a bound function, an inspection event and a
// deferred closure for every emitted event, listened to or not: three a round (round-started, child-started,
// report-accepted), the most part of a round's garbage that no one reads when a run has no onProgress (a library
// run, a fleet worker without progress). An emit here builds nothing for a running actor that no one listens to and
// no one inspects, and is XState's own `emit` otherwise (BENCHMARKS.md, issue 35: the round, second pass).

/** What XState hands a built-in action's `resolve` as the action's arguments. */
interface EmitArgs {
  context: unknown;
  event: EventObject;
  self: unknown;
  system: unknown;
}

/** The event, or the function of the action's arguments and params that builds it, as `emit` takes it. */
type EmittedOrExpr = EventObject | ((args: EmitArgs, params: unknown) => EventObject);

/** XState's actor status while it runs (`ProcessingStatus.Running`, xstate/src/createActor.ts). */
const RUNNING = 1;

/** What of an actor this reads: its listeners (`on`), its inspector (root only) and its parent. */
interface ActorInternals {
  eventListeners?: Map<string, unknown>;
  options?: { inspect?: unknown };
  _parent?: unknown;
  _processingStatus?: number;
}

/**
 * True when an emitted event reaches no one: a running root actor without an `inspect` option and without a listener.
 * Anything else takes XState's path: an actor that is not running yet (its initial entry, whose emits are deferred
 * until it starts, after its host added its listeners), a pure `transition` (whose returned actions a replay reads),
 * or an actor under a parent (whose system may be inspected).
 */
function nobodyHears(self: ActorInternals): boolean {
  return (
    self._processingStatus === RUNNING &&
    self._parent === undefined &&
    self.options?.inspect === undefined &&
    self.eventListeners?.size === 0
  );
}

/** Resolves to XState's own emit of the built event when someone hears it, and to nothing otherwise. */
function resolveProgress(
  actorScope: AnyActorScope,
  snapshot: AnyMachineSnapshot,
  actionArgs: EmitArgs,
  actionParams: unknown,
  { event }: { event: EmittedOrExpr },
): [AnyMachineSnapshot, undefined, unknown[] | undefined] {
  if (nobodyHears(actorScope.self as unknown as ActorInternals)) return [snapshot, undefined, undefined];
  const built = typeof event === 'function' ? event(actionArgs, actionParams) : event;
  // XState's emit of the built event: the same action type, params, inspection event and deferred emission.
  return [snapshot, undefined, [emit(built)]];
}

/**
 * XState's `emit`, building its event only when someone hears it (a listener, or an inspector): what a listener and
 * an inspector receive, and what a pure transition returns, are XState's own. Relies on XState's built-in action
 * protocol (`resolve`, nested actions), which the pinned xstate version fixes; `test/machines/progress-emit.test.ts`
 * checks it against XState's `emit`.
 */
export const emitProgress = ((event: EmittedOrExpr) => {
  const action = emit(event as Parameters<typeof emit>[0]) as unknown as Record<string, unknown>;
  // No `execute`: the nested emit executes, so XState inspects one `xstate.emit` action, as before.
  delete action.execute;
  action.resolve = resolveProgress;
  return action;
}) as unknown as typeof emit;
