import type { AnyStateMachine, AnyTransitionDefinition } from 'xstate';
import { getStateNodes } from 'xstate/graph';

const guardName = (guard: unknown): string => {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return guard === undefined ? '' : 'inline guard';
};

/** An event by what raises it: `always`, `done:<id>` / `error:<id>` of an invoke, `after:<delay>`, or its type. */
function eventName(t: AnyTransitionDefinition): string {
  if (t.eventType === '') return 'always';
  // Each invoke's id is literal in the machine (statechart.test.ts pins it), so the event type names its actor.
  const actorEvent = /^xstate\.(done|error)\.actor\.(.+)$/.exec(t.eventType);
  if (actorEvent !== null) return `${actorEvent[1]}:${actorEvent[2]}`;
  const after = t.source.after.find((a) => a.eventType === t.eventType);
  if (after !== undefined) return `after:${String(after.delay)}`;
  return t.eventType;
}

/**
 * A transition's name: its source, its event, its place among the source's transitions for that event (each
 * guarded branch is its own transition), its guard and its target. Names are stable across `machine.provide`,
 * which rebuilds the state nodes from the same config.
 */
export function transitionKey(t: AnyTransitionDefinition): string {
  const siblings =
    t.eventType === '' ? (t.source.always ?? []) : (t.source.transitions.get(t.eventType) ?? []);
  const guard = guardName(t.guard);
  const targets = t.target?.map((node) => node.id).join(', ') ?? '(no target)';
  return `${t.source.id} on ${eventName(t)} #${siblings.indexOf(t)}${guard ? ` [${guard}]` : ''} → ${targets}`;
}

/** Every state node of a machine, nested ones included, in document order (the root excepted). */
export function stateNodesOf(machine: AnyStateMachine): AnyStateMachine['root'][] {
  return getStateNodes(machine.root);
}

/** Every state node of a machine (the root excepted). */
export function stateNodeIds(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root).map((node) => node.id);
}

/** The transitions of one node: each `on`, `onDone`, `onError`, `after` and `always` branch. */
const transitionsOf = (node: AnyStateMachine['root']): string[] => [
  ...[...node.transitions.values()].flat().map(transitionKey),
  ...(node.always ?? []).map(transitionKey),
];

/** The transitions of the machine's root itself (its wall clock), taken in whichever state a run is in. */
export function rootTransitionKeys(machine: AnyStateMachine): string[] {
  return transitionsOf(machine.root);
}

/** Every transition of the states of a machine: each `on`, `onDone`, `onError`, `after` and `always` branch. */
export function transitionKeys(machine: AnyStateMachine): string[] {
  return getStateNodes(machine.root).flatMap(transitionsOf);
}

/** What a replay exercised: the transitions the machine took, and the state nodes they left or entered. */
export interface Exercised {
  transitions: Set<string>;
  states: Set<string>;
}

/** Records the transitions of one machine run, as its `@xstate.microstep` inspection events report them. */
export function exercisedBy(transitions: readonly AnyTransitionDefinition[]): Exercised {
  const exercised: Exercised = { transitions: new Set(), states: new Set() };
  for (const t of transitions) {
    exercised.transitions.add(transitionKey(t));
    exercised.states.add(t.source.id);
    for (const target of t.target ?? []) exercised.states.add(target.id);
  }
  return exercised;
}

/** Tallies what all replays exercised against everything the machine has. */
export class CoverageLedger {
  private readonly states = new Set<string>();
  private readonly transitions = new Set<string>();

  constructor(private readonly machine: AnyStateMachine) {}

  add(exercised: Exercised): void {
    for (const s of exercised.states) this.states.add(s);
    for (const t of exercised.transitions) this.transitions.add(t);
  }

  summary() {
    const allStates = stateNodeIds(this.machine);
    const allTransitions = [...rootTransitionKeys(this.machine), ...transitionKeys(this.machine)];
    return {
      states: { covered: allStates.filter((s) => this.states.has(s)).length, total: allStates.length },
      transitions: {
        covered: allTransitions.filter((t) => this.transitions.has(t)).length,
        total: allTransitions.length,
      },
      uncoveredStates: allStates.filter((s) => !this.states.has(s)),
      uncoveredTransitions: allTransitions.filter((t) => !this.transitions.has(t)),
    };
  }
}
