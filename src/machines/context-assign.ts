import { type AnyActorScope, type AnyMachineSnapshot, assign, type EventObject } from 'xstate';

// XState's `assign` builds the next snapshot with `cloneMachineSnapshot`, which recomputes the state value and the
// tag set from the active state nodes (a Set, two Maps and their arrays) although an assignment changes neither: a
// round runs five such assigns, and their snapshots were the largest part of its garbage (BENCHMARKS.md, issue 21).
// An assignment here copies the snapshot with its new context and keeps what the nodes give as it was. Both copies are
// object literals of their keys, not spreads: a spread builds its copy key by key (a map transition and a property
// store each, out-of-object past the fourth key), a literal in one allocation of a known shape; 4 assigns a round,
// ≈ 0.2 µs against 0.6–1 µs each (BENCHMARKS.md, issue 35: the round, second pass).

/** The arguments an assignment function is called with, as XState's `assign` gives them (no `spawn`: none is used). */
interface AssignArgs {
  context: unknown;
  event: EventObject;
  self: unknown;
  system: unknown;
}

/** What XState hands a built-in action's `resolve`: the assignment is the one the action was created with. */
type AssignmentFunction = (args: AssignArgs, params: unknown) => object;

/**
 * How an assignment's next context is made from the context and the assignment's update: every key of the context in
 * its order, the update's values over them, and any key the update adds after them (a spread does exactly that).
 */
export type ContextWith<C extends object = Record<string, unknown>> = (context: C, update: Partial<C>) => C;

const spreadContext: ContextWith = (context, update) => ({ ...context, ...update });

/**
 * XState's machine snapshot (`createMachineSnapshot`, xstate/src/State.ts) with another context: its keys, in its order,
 * as a literal. `test/machines/context-assign.test.ts` checks that it has every key of XState's, in that order.
 */
function snapshotWith(snapshot: AnyMachineSnapshot, context: unknown): AnyMachineSnapshot {
  const s = snapshot as unknown as Record<string, unknown>;
  return {
    status: s.status,
    output: s.output,
    error: s.error,
    machine: s.machine,
    context,
    _nodes: s._nodes,
    value: s.value,
    tags: s.tags,
    children: s.children,
    historyValue: s.historyValue,
    matches: s.matches,
    hasTag: s.hasTag,
    can: s.can,
    getMeta: s.getMeta,
    toJSON: s.toJSON,
  } as unknown as AnyMachineSnapshot;
}

/** True when every key `update` assigns is in `context` already, holding the very same value. */
function changesNothing(context: Record<string, unknown>, update: object): boolean {
  for (const key in update)
    if (!(key in context) || !Object.is(context[key], (update as Record<string, unknown>)[key])) return false;
  return true;
}

/** The next snapshot of an assignment: the same state nodes, value, tags and children, and the updated context. */
function resolveContextAssign(
  actorScope: AnyActorScope,
  snapshot: AnyMachineSnapshot,
  actionArgs: { event: EventObject },
  actionParams: unknown,
  { assignment, contextWith }: { assignment: AssignmentFunction; contextWith: ContextWith },
): [AnyMachineSnapshot, undefined, undefined] {
  const update = assignment(
    { context: snapshot.context, event: actionArgs.event, self: actorScope.self, system: actorScope.system },
    actionParams,
  );
  // An assignment that changes nothing (a round whose agent said nothing of its usage: `recordUsage` of null over
  // null) keeps the snapshot: no context and no snapshot copied, that only a collector would read.
  if (changesNothing(snapshot.context, update)) return [snapshot, undefined, undefined];
  // Not XState's `Object.assign({}, context, update)`: the same keys in the same order, and V8 keeps the copy a fast
  // object at any number of keys (Object.assign turns one of more than 19 into a dictionary).
  return [snapshotWith(snapshot, contextWith(snapshot.context, update)), undefined, undefined];
}

/**
 * XState's `assign` for an assignment function that spawns nothing, without the recomputed snapshot: the context it
 * gives holds what XState's would, key for key and in the same order; the rest of the snapshot is carried over. An
 * object of property assigners is left to XState's own resolution. Relies on XState's built-in action protocol (`resolve`),
 * which the pinned xstate version fixes; `test/machines/context-assign.test.ts` checks it against XState's `assign`.
 */
export const assignContext = contextAssign(spreadContext);

/**
 * `assignContext` for a machine whose context `contextWith` copies (a literal of its keys, which a spread of a context
 * of many keys is far slower than); `contextWith` must give what a spread gives, key for key and in the same order.
 */
export function contextAssign<C extends object>(contextWith: ContextWith<C>): typeof assign {
  return ((assignment: Parameters<typeof assign>[0]) => {
    const action = assign(assignment);
    if (typeof assignment === 'function')
      Object.assign(action, { resolve: resolveContextAssign, contextWith });
    return action;
  }) as typeof assign;
}
