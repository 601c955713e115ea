import { literal } from './literal.js';
import type {
  GraphInvoke,
  GraphState,
  GraphTransition,
  MachineGraph,
  NamedImplementation,
  PlainData,
} from './machine-graph.js';

type Config = { [key: string]: PlainData };

/** A guard or an action by name: a string, or `{ type, params }` when its params are plain data. */
const implementation = (ref: NamedImplementation): PlainData =>
  ref.params === undefined ? ref.type : { type: ref.type, params: ref.params };

/** One, or a list of several (XState takes either). */
const oneOrMany = (items: PlainData[]): PlainData => (items.length === 1 ? (items[0] as PlainData) : items);

/**
 * A target as the source's config writes it: a sibling by its key, a state inside the source as `.child.path`, a state
 * with an id of its own as `#id`, any other state as `#<machine id>.<path>`.
 */
function targetText(graph: MachineGraph, source: string, target: string): string {
  const state = (key: string) => graph.states.find((s) => s.key === key);
  const targetState = state(target) as GraphState;
  const sourceParent = source === graph.id ? undefined : (state(source)?.parent ?? null);
  if (sourceParent === targetState.parent) return targetState.name;
  if (source === graph.id) return `.${target}`;
  if (target.startsWith(`${source}.`)) return target.slice(source.length);
  return `#${targetState.customId ?? `${graph.id}.${target}`}`;
}

function transitionConfig(graph: MachineGraph, t: GraphTransition): Config {
  const config: Config = {};
  if (t.target !== null) config.target = targetText(graph, t.source, t.target);
  if (t.guard !== null) config.guard = implementation(t.guard);
  if (t.actions.length > 0) config.actions = oneOrMany(t.actions.map(implementation));
  if (t.description !== null) config.description = t.description;
  if (t.reenter) config.reenter = true;
  return config;
}

/** The transitions of one event, in order: an object for one, a list of guarded branches for several. */
function branches(graph: MachineGraph, transitions: GraphTransition[]): PlainData {
  return oneOrMany(transitions.map((t) => transitionConfig(graph, t)));
}

/** Groups transitions by a key, keeping the order in which each key first appears. */
function groupBy(
  graph: MachineGraph,
  transitions: GraphTransition[],
  keyOf: (t: GraphTransition) => string,
): Config {
  const groups = new Map<string, GraphTransition[]>();
  for (const t of transitions) groups.set(keyOf(t), [...(groups.get(keyOf(t)) ?? []), t]);
  return Object.fromEntries([...groups].map(([k, ts]) => [k, branches(graph, ts)]));
}

function invokeConfig(graph: MachineGraph, invoke: GraphInvoke, transitions: GraphTransition[]): Config {
  const config: Config = { id: invoke.id, src: invoke.src };
  const of = (kind: 'done' | 'error') =>
    transitions.filter((t) => t.event.kind === kind && t.event.invokeId === invoke.id);
  if (of('done').length > 0) config.onDone = branches(graph, of('done'));
  if (of('error').length > 0) config.onError = branches(graph, of('error'));
  return config;
}

/** A node's `on`, `after`, `always` and (for a compound state) `onDone`, as its transitions give them. */
function eventConfig(graph: MachineGraph, config: Config, transitions: GraphTransition[]): Config {
  const on = transitions.filter((t) => t.event.kind === 'event');
  if (on.length > 0) config.on = groupBy(graph, on, (t) => t.eventType);
  const after = transitions.filter((t) => t.event.kind === 'after');
  if (after.length > 0)
    config.after = groupBy(graph, after, (t) => (t.event.kind === 'after' ? String(t.event.delay) : ''));
  const always = transitions.filter((t) => t.event.kind === 'always');
  if (always.length > 0) config.always = branches(graph, always);
  const done = transitions.filter((t) => t.event.kind === 'stateDone');
  if (done.length > 0) config.onDone = branches(graph, done);
  return config;
}

/** The `states` of a box (null: the root): each child's config by its own key. */
function childStates(graph: MachineGraph, parent: string | null): Config {
  return Object.fromEntries(
    graph.states
      .filter((state) => state.parent === parent)
      .map((state) => [state.name, stateConfig(graph, state)]),
  );
}

function stateConfig(graph: MachineGraph, state: GraphState): Config {
  const transitions = graph.transitions.filter((t) => t.source === state.key);
  const config: Config = {};
  if (state.customId !== null) config.id = state.customId;
  if (state.final) config.type = 'final';
  if (state.description !== null) config.description = state.description;
  if (state.tags.length > 0) config.tags = state.tags;
  if (state.entry.length > 0) config.entry = oneOrMany(state.entry.map(implementation));
  if (state.exit.length > 0) config.exit = oneOrMany(state.exit.map(implementation));
  if (state.invokes.length > 0)
    config.invoke = oneOrMany(state.invokes.map((invoke) => invokeConfig(graph, invoke, transitions)));
  eventConfig(graph, config, transitions);
  if (state.initial !== null) {
    config.initial = (graph.states.find((s) => s.key === state.initial) as GraphState).name;
    config.states = childStates(graph, state.key);
  }
  return config;
}

/** The machine's configuration as plain data: what `createMachine` needs to draw it, every implementation by name. */
export function statelyConfig(graph: MachineGraph): Config {
  const config: Config = { id: graph.id, initial: graph.initial };
  if (graph.description !== null) config.description = graph.description;
  eventConfig(
    graph,
    config,
    graph.transitions.filter((t) => t.source === graph.id),
  );
  config.states = childStates(graph, null);
  return config;
}

/**
 * The machine as literal code that Stately Studio ("Import from code") and the Stately VS Code extension read: one
 * `createMachine` call with states, transitions, guard, action, actor and delay names, invoke ids, descriptions and
 * tags, and no function or imported constant. `origin` says, in the header, what it was generated from.
 */
export function toStatelyCode(graph: MachineGraph, origin: string): string {
  return [
    `// Generated by \`ralph viz\` from ${origin}: do not edit; run \`npm run viz\`.`,
    '// The configuration as literal code for Stately Studio ("Import from code") and the Stately VS Code extension.',
    '// Guards, actions, actors and delays appear by name; their implementations, the context and what each actor is',
    '// given live in the machine file.',
    "import { createMachine } from 'xstate';",
    '',
    '/** The statechart, as Stately tools read it. */',
    `export const machine = createMachine(${literal(statelyConfig(graph))});`,
    '',
  ].join('\n');
}
