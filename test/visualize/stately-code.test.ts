import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { ralphMachine } from '../../src/machines/ralph.machine.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { toStatelyCode } from '../../src/visualize/stately-code.js';
import { machine as committed } from '../../visualizations/ralph.stately.js';
import { rootTransitionKeys, stateNodeIds, transitionKeys } from '../model/coverage.js';
import { evaluateStatelyCode } from './evaluate-stately.js';

/**
 * What each state, at any depth, shows besides its transitions: kind, description, tags, invokes, entry and exit
 * actions, and for a box the child it starts in.
 */
const statesOf = (machine: AnyStateMachine) =>
  getStateNodes(machine.root).map((node) => ({
    key: node.path.join('.'),
    initial: node.initial?.target.map((n) => n.id),
    type: node.type,
    description: node.description,
    tags: node.tags,
    invoke: node.invoke.map((i) => ({ id: i.id, src: i.src })),
    entry: node.entry.filter((a) => typeof a !== 'function').map((a) => (typeof a === 'string' ? a : a.type)),
    exit: node.exit.filter((a) => typeof a !== 'function').map((a) => (typeof a === 'string' ? a : a.type)),
  }));

/** Every transition, at any depth and the root's own, with its actions by name, in the machine's order. */
const actionsOf = (machine: AnyStateMachine) =>
  [machine.root, ...getStateNodes(machine.root)].flatMap((node) =>
    [...[...node.transitions.values()].flat(), ...(node.always ?? [])].map((t) =>
      t.actions.map((a) => (typeof a === 'string' ? a : (a as { type: string }).type)),
    ),
  );

const generated = evaluateStatelyCode(toStatelyCode(machineGraph(ralphMachine), 'ralphMachine'));

describe.each([
  ['the generated Stately code, run', generated],
  ['visualizations/ralph.stately.ts, imported', committed],
])('%s builds the machine ralphMachine is', (_, machine) => {
  it('with the same id, initial state and states', () => {
    expect(machine.id).toBe(ralphMachine.id);
    expect(machine.root.initial?.target.map((n) => n.id)).toEqual(['ralph.validating']);
    expect(stateNodeIds(machine)).toEqual(stateNodeIds(ralphMachine));
    expect(statesOf(machine)).toEqual(statesOf(ralphMachine));
  });

  it('with the same transitions: event, guard, order and target, and the same actions by name', () => {
    expect(transitionKeys(machine)).toEqual(transitionKeys(ralphMachine));
    expect(rootTransitionKeys(machine)).toEqual(rootTransitionKeys(ralphMachine));
    expect(actionsOf(machine)).toEqual(actionsOf(ralphMachine));
  });
});
