import { describe, expect, it } from 'vitest';
import { assign, createMachine, fromPromise, setup } from 'xstate';
import { toDot } from '../../src/visualize/dot.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { toMermaid } from '../../src/visualize/mermaid.js';
import { toStatelyCode } from '../../src/visualize/stately-code.js';
import { evaluateStatelyCode } from './evaluate-stately.js';

// A machine with what ralphMachine may grow: descriptions, tags, explicit invoke ids, a guarded event with params,
// a numeric delay, a transition that stays in its state, exit actions, a described transition, a reentering one.
const kettle = setup({
  actors: { heat: fromPromise(async () => 100) },
  guards: { isFull: () => true, below: (_, params: { degrees: number }) => params.degrees > 0 },
  actions: { beep: () => {}, log: (_, params: { text: string }) => void params, count: assign({}) },
  delays: { boilTime: 5_000 },
}).createMachine({
  id: 'kettle',
  description: 'A kettle that boils water.',
  initial: 'idle',
  states: {
    idle: {
      description: "Waits to be switched on; it won't heat an empty kettle.",
      tags: ['off'],
      on: {
        SWITCH_ON: [
          { guard: 'isFull', target: 'heating', description: 'only a full kettle heats' },
          { actions: { type: 'log', params: { text: 'fill it first' } } },
        ],
        TAP: { target: 'idle', reenter: true, actions: 'count' },
      },
    },
    heating: {
      tags: ['on', 'hot'],
      entry: 'beep',
      exit: ['beep', { type: 'log', params: { text: 'off' } }],
      invoke: { id: 'element', src: 'heat', onDone: 'boiled', onError: 'broken' },
      after: {
        boilTime: 'boiled',
        60000: { target: 'broken', guard: { type: 'below', params: { degrees: 90 } } },
      },
      on: { SWITCH_OFF: 'idle' },
    },
    boiled: { type: 'final', description: 'Done.' },
    broken: { type: 'final' },
  },
});

const graph = machineGraph(kettle);

describe('the machine graph', () => {
  it('reads states with descriptions, tags, invokes and actions by name, in the machine order', () => {
    expect(graph.states.map((s) => [s.key, s.final, s.description, s.tags])).toEqual([
      ['idle', false, "Waits to be switched on; it won't heat an empty kettle.", ['off']],
      ['heating', false, null, ['on', 'hot']],
      ['boiled', true, 'Done.', []],
      ['broken', true, null, []],
    ]);
    const heating = graph.states[1];
    expect(heating?.invokes).toEqual([{ id: 'element', src: 'heat' }]);
    // XState's own bookkeeping for the delays (raise on entry, cancel on exit) is not an action of the state.
    expect(heating?.entry).toEqual([{ type: 'beep' }]);
    expect(heating?.exit).toEqual([{ type: 'beep' }, { type: 'log', params: { text: 'off' } }]);
  });

  it('reads every transition with its event, guard and target, numbered per source', () => {
    expect(graph.transitions.map((t) => [t.elementId, t.eventLabel, t.guard, t.target])).toEqual([
      ['edge-idle-0', 'SWITCH_ON', { type: 'isFull' }, 'heating'],
      ['edge-idle-1', 'SWITCH_ON', null, null],
      ['edge-idle-2', 'TAP', null, 'idle'],
      ['edge-heating-0', 'SWITCH_OFF', null, 'idle'],
      ['edge-heating-1', 'done: heat', null, 'boiled'],
      ['edge-heating-2', 'error: heat', null, 'broken'],
      ['edge-heating-3', 'after 60000ms', { type: 'below', params: { degrees: 90 } }, 'broken'],
      ['edge-heating-4', 'after boilTime', null, 'boiled'],
    ]);
    expect(graph.transitions[0]?.description).toBe('only a full kettle heats');
    expect(graph.transitions[2]?.reenter).toBe(true);
  });

  it('refuses what no diagram can name: an inline guard, an inline action, a nested state', () => {
    const inlineGuard = createMachine({
      initial: 'a',
      states: { a: { on: { GO: { guard: () => true, target: 'b' } } }, b: {} },
    });
    expect(() => machineGraph(inlineGuard)).toThrow(
      'visualize: a transition of a (#0) has an inline guard; name it in setup()',
    );
    const inlineAction = createMachine({ initial: 'a', states: { a: { entry: () => {} } } });
    expect(() => machineGraph(inlineAction)).toThrow('visualize: state a (entry) has an inline action');
    const nested = createMachine({ initial: 'a', states: { a: { initial: 'b', states: { b: {} } } } });
    expect(() => machineGraph(nested)).toThrow(
      'visualize: state a is compound; only flat machines are drawn',
    );
  });
});

describe('the outputs of a machine graph', () => {
  it('Stately code runs back into a machine with the same graph', () => {
    expect(machineGraph(evaluateStatelyCode(toStatelyCode(graph, 'the kettle')))).toEqual(graph);
  });

  it('Mermaid labels a transition with event and guard, a delay with after, a targetless one as a loop', () => {
    const mmd = toMermaid(graph);
    expect(mmd).toContain('\n  [*] --> idle\n');
    expect(mmd).toContain('\n  idle --> heating: SWITCH_ON [isFull]\n');
    expect(mmd).toContain('\n  idle --> idle: SWITCH_ON\n');
    expect(mmd).toContain('\n  heating --> broken: after 60000ms [below]\n');
    expect(mmd).toContain('\n  heating --> boiled: done: heat\n');
    expect(mmd).toContain('\n  boiled --> [*]\n');
    expect(mmd).toContain('\n  heating: heating\n  heating: invoke heat\n  heating: entry / beep\n');
    // A description may hold `;`, which would end a Mermaid statement: it goes in a comment.
    expect(mmd).toContain("\n  %% idle: Waits to be switched on; it won't heat an empty kettle.\n");
  });

  it('DOT gives states and edges the ids and classes the run report styles', () => {
    const dot = toDot(graph);
    expect(dot).toContain('"heating" [id="state-heating", class="state atomic tag-on tag-hot"');
    expect(dot).toContain('"boiled" [id="state-boiled", class="state final"');
    expect(dot).toContain(
      '"heating" -> "broken" [id="edge-heating-3", class="transition from-heating to-broken", label="after 60000ms [below]"',
    );
    expect(dot).toContain('tooltip="Waits to be switched on; it won\'t heat an empty kettle."');
  });
});
