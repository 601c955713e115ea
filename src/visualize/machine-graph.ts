import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

/** JSON-like data: what a param can be for a diagram or generated code to show it. */
export type PlainData = null | boolean | number | string | PlainData[] | { [key: string]: PlainData };

/** A guard, action or actor named in `setup()`, with its params when they are plain data (not computed). */
export interface NamedImplementation {
  type: string;
  params?: PlainData;
}

/** What raises a transition. */
export type GraphEvent =
  | { kind: 'always' }
  | { kind: 'event'; type: string }
  | { kind: 'done'; invokeId: string; src: string }
  | { kind: 'error'; invokeId: string; src: string }
  | { kind: 'after'; delay: string | number }
  /** A compound state's `onDone`: one of its final children was reached. */
  | { kind: 'stateDone' };

/** One invoked actor of a state. */
export interface GraphInvoke {
  id: string;
  src: string;
}

/** One state of the machine, as a diagram shows it. */
export interface GraphState {
  /** The state's path from the root, dot-separated (`running.round.awaitingReport`), as recordings key states. */
  key: string;
  /** The state's own key, the last part of its path (`awaitingReport`). */
  name: string;
  /** The path of the compound state it is in; null for a state of the root. */
  parent: string | null;
  /** Its XState id when the machine gave it one (`id: 'x'`); null for the default, `<machine id>.<path>`. */
  customId: string | null;
  /** `state-<key>`: the id of the state's node (or box, for a compound state) in the SVG. */
  elementId: string;
  final: boolean;
  /** For a compound state, the path of the child it starts in; null for an atomic or final state. */
  initial: string | null;
  description: string | null;
  tags: string[];
  entry: NamedImplementation[];
  exit: NamedImplementation[];
  invokes: GraphInvoke[];
}

/** One transition: each guarded branch of an event is a transition of its own. */
export interface GraphTransition {
  /**
   * `edge-<source>-<n>`, n counting the source's transitions in order: the id of its edge in the SVG, or of the
   * branch before it that its edge is drawn with (the branches of one event between the same two states are one edge).
   */
  elementId: string;
  source: string;
  /** The target state's key (its path), or null for a transition that stays in its state. */
  target: string | null;
  /** The event type as XState names it ('' for an eventless transition). */
  eventType: string;
  event: GraphEvent;
  /** The event as a person reads it: `CANCEL`, `always`, `done: runRound`, `error: runRound`, `after cancelDeadline`. */
  eventLabel: string;
  guard: NamedImplementation | null;
  actions: NamedImplementation[];
  description: string | null;
  reenter: boolean;
}

/**
 * The machine's states and transitions as plain data, in the machine's own order (stable run to run): each state
 * before its children, depth first. A transition whose source is the machine's id is the root's own (the run's wall
 * clock): it is taken in whichever state the run is in. A transition whose source is a compound state is taken in
 * any state inside it, and leaves the whole box.
 */
export interface MachineGraph {
  id: string;
  description: string | null;
  initial: string;
  states: GraphState[];
  transitions: GraphTransition[];
}

/** The SVG id of a state's node. */
export const stateElementId = (key: string): string => `state-${key}`;

/** The SVG id of the n-th transition (from 0) leaving `source`. */
export const edgeElementId = (source: string, n: number): string => `edge-${source}-${n}`;

/** A state node's path from the root, dot-separated: its key in a graph and in a recording. */
const pathOf = (node: AnyStateNode): string => node.path.join('.');

function isPlainData(value: unknown): value is PlainData {
  if (value === null || ['boolean', 'number', 'string'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isPlainData);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value as object).every(isPlainData);
}

/** A guard or action as named in `setup()`; inline implementations are refused, since no diagram can name them. */
function named(where: string, what: 'guard' | 'action', value: unknown): NamedImplementation {
  if (typeof value === 'string') return { type: value };
  if (typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string') {
    const params = 'params' in value ? value.params : undefined;
    return isPlainData(params) ? { type: value.type, params } : { type: value.type };
  }
  throw new Error(
    `visualize: ${where} has an inline ${what}; name it in setup() so that diagrams and Stately can show it`,
  );
}

/** The delayed events XState adds to a state's entry and exit for its `after` transitions, which a diagram shows as edges. */
function isAfterBookkeeping(action: unknown): boolean {
  if (typeof action !== 'function') return false;
  const { type, id, sendId } = action as { type?: unknown; id?: unknown; sendId?: unknown };
  const ref = type === 'xstate.raise' ? id : type === 'xstate.cancel' ? sendId : undefined;
  return typeof ref === 'string' && ref.startsWith('xstate.after.');
}

function namedActions(where: string, actions: readonly unknown[]): NamedImplementation[] {
  return actions
    .filter((action) => !isAfterBookkeeping(action))
    .map((action) => named(where, 'action', action));
}

function eventOf(t: AnyTransitionDefinition, node: AnyStateNode): GraphEvent {
  if (t.eventType === '') return { kind: 'always' };
  if (t.eventType === `xstate.done.state.${node.id}`) return { kind: 'stateDone' };
  for (const invoke of node.invoke) {
    const src = typeof invoke.src === 'string' ? invoke.src : invoke.id;
    if (t.eventType === `xstate.done.actor.${invoke.id}`) return { kind: 'done', invokeId: invoke.id, src };
    if (t.eventType === `xstate.error.actor.${invoke.id}`) return { kind: 'error', invokeId: invoke.id, src };
  }
  const after = node.after.find((a) => a.eventType === t.eventType);
  if (after !== undefined) {
    if (typeof after.delay === 'function')
      throw new Error(`visualize: state ${pathOf(node)} has an inline delay; name it in setup()`);
    return { kind: 'after', delay: after.delay };
  }
  return { kind: 'event', type: t.eventType };
}

/** How a person reads an event: the done/error events of invokes by the actor, delays by name (or in ms). */
export function eventLabel(event: GraphEvent): string {
  switch (event.kind) {
    case 'always':
      return 'always';
    case 'event':
      return event.type;
    case 'done':
      return `done: ${event.src}`;
    case 'error':
      return `error: ${event.src}`;
    case 'after':
      return typeof event.delay === 'number' ? `after ${event.delay}ms` : `after ${event.delay}`;
    case 'stateDone':
      return 'onDone';
  }
}

/** A transition's label: its event, then its guard in brackets, as Stately writes them. */
export function transitionLabel(t: Pick<GraphTransition, 'eventLabel' | 'guard'>): string {
  return t.guard === null ? t.eventLabel : `${t.eventLabel} [${t.guard.type}]`;
}

function targetOf(t: AnyTransitionDefinition, where: string): string | null {
  const targets = t.target ?? [];
  if (targets.length === 0) return null;
  const [target] = targets;
  if (target === undefined || targets.length > 1)
    throw new Error(
      `visualize: ${where} targets ${targets.map((s) => s.id).join(', ')}: only one target is drawn`,
    );
  if (target.parent === undefined)
    throw new Error(`visualize: ${where} targets the machine root; only its states are drawn`);
  return pathOf(target);
}

function graphState(node: AnyStateNode): GraphState {
  const key = pathOf(node);
  const where = `state ${key}`;
  const defaultId = [node.machine.id, ...node.path].join('.');
  return {
    key,
    name: node.key,
    parent: node.parent?.parent === undefined ? null : pathOf(node.parent),
    customId: node.id === defaultId ? null : node.id,
    elementId: stateElementId(key),
    final: node.type === 'final',
    initial: node.type === 'compound' ? (initialOf(node) ?? null) : null,
    description: node.description ?? null,
    tags: [...node.tags],
    entry: namedActions(`${where} (entry)`, node.entry),
    exit: namedActions(`${where} (exit)`, node.exit),
    invokes: node.invoke.map((invoke) => {
      if (typeof invoke.src !== 'string')
        throw new Error(`visualize: ${where} invokes an inline actor; name it in setup()`);
      return { id: invoke.id, src: invoke.src };
    }),
  };
}

/** A compound node's initial child, by path. */
function initialOf(node: AnyStateNode): string | undefined {
  const target = node.initial?.target[0];
  return target === undefined ? undefined : pathOf(target);
}

/**
 * A state's transitions in the machine's order: each event's branches (`on`, invoke done/error, `after`, a compound
 * state's `onDone`), then `always`. The root's are keyed by the machine's id.
 */
function graphTransitions(node: AnyStateNode): GraphTransition[] {
  const source = node.parent === undefined ? node.machine.id : pathOf(node);
  const all = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  return all.map((t, n) => {
    const where = `a transition of ${source} (#${n})`;
    const event = eventOf(t, node);
    return {
      elementId: edgeElementId(source, n),
      source,
      target: targetOf(t, where),
      eventType: t.eventType,
      event,
      eventLabel: eventLabel(event),
      guard: t.guard === undefined ? null : named(where, 'guard', t.guard),
      actions: namedActions(where, t.actions),
      description: t.description ?? null,
      reenter: t.reenter,
    };
  });
}

/** The states under a node, each before its own children, in the machine's order; parallel and history refused. */
function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) => {
    if (child.type === 'parallel' || child.type === 'history')
      throw new Error(
        `visualize: state ${pathOf(child)} is ${child.type}; only atomic, final and compound states are drawn`,
      );
    return [child, ...descendants(child)];
  });
}

/**
 * The machine read from its runtime state nodes (not its source text), for the diagrams and the Stately code.
 * Compound states are read at any depth, each state keyed by its path; a flat machine's keys are its states' keys.
 * Parallel and history states are refused, not drawn wrong.
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root;
  if (root.type !== 'compound')
    throw new Error(`visualize: the machine root is ${root.type}; only a compound root is drawn`);
  if (root.always !== undefined)
    throw new Error('visualize: the machine root has eventless transitions; they are not drawn');
  const nodes = descendants(root);
  const initial = initialOf(root);
  if (initial === undefined) throw new Error('visualize: the machine has no initial state');
  return {
    id: machine.id,
    description: root.description ?? null,
    initial,
    states: nodes.map(graphState),
    // The root's own transitions first, as the machine's config lists them.
    transitions: [root, ...nodes].flatMap(graphTransitions),
  };
}
