import { describe, expect, it } from 'vitest';
import { assign, createMachine, fromPromise, setup } from 'xstate';
import { toDot } from '../../src/visualize/dot.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { toMermaid } from '../../src/visualize/mermaid.js';
import { toStatelyCode } from '../../src/visualize/stately-code.js';
import { nestedMachine } from '../fixtures/machine/nested.machine.js';
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

  it('refuses what no diagram can name or draw: an inline guard, an inline action, a parallel state', () => {
    const inlineGuard = createMachine({
      initial: 'a',
      states: { a: { on: { GO: { guard: () => true, target: 'b' } } }, b: {} },
    });
    expect(() => machineGraph(inlineGuard)).toThrow(
      'visualize: a transition of a (#0) has an inline guard; name it in setup()',
    );
    const inlineAction = createMachine({ initial: 'a', states: { a: { entry: () => {} } } });
    expect(() => machineGraph(inlineAction)).toThrow('visualize: state a (entry) has an inline action');
    const parallel = createMachine({
      initial: 'a',
      states: { a: { initial: 'b', states: { b: { type: 'parallel', states: { c: {}, d: {} } } } } },
    });
    expect(() => machineGraph(parallel)).toThrow(
      'visualize: state a.b is parallel; only atomic, final and compound states are drawn',
    );
    const history = createMachine({
      initial: 'a',
      states: { a: { initial: 'b', states: { b: {}, before: { type: 'history' } } } },
    });
    expect(() => machineGraph(history)).toThrow(
      'visualize: state a.before is history; only atomic, final and compound states are drawn',
    );
    const twoTargets = createMachine({
      type: 'parallel',
      states: { x: { initial: 'a', states: { a: {} } }, y: { initial: 'b', states: { b: {} } } },
    });
    expect(() => machineGraph(twoTargets)).toThrow(
      'visualize: the machine root is parallel; only a compound root is drawn',
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

describe('the graph of a nested machine', () => {
  const nested = machineGraph(nestedMachine);

  it('keys each state by its path, each before its children, with its box and, for a box, its initial child', () => {
    expect(nested.initial).toBe('validating');
    expect(nested.states.map((s) => [s.key, s.name, s.parent, s.initial, s.final])).toEqual([
      ['validating', 'validating', null, null, false],
      ['running', 'running', null, 'running.round', false],
      ['running.round', 'round', 'running', 'running.round.starting', false],
      ['running.round.starting', 'starting', 'running.round', null, false],
      ['running.round.awaitingReport', 'awaitingReport', 'running.round', null, false],
      ['running.deciding', 'deciding', 'running', 'running.deciding.checking', false],
      ['running.deciding.checking', 'checking', 'running.deciding', null, false],
      ['running.deciding.complete', 'complete', 'running.deciding', null, true],
      ['running.deciding.exhausted', 'exhausted', 'running.deciding', null, true],
      ['cancelling', 'cancelling', null, null, false],
      ['cancelled', 'cancelled', null, null, true],
      ['done', 'done', null, null, true],
      ['failed', 'failed', null, null, true],
    ]);
    expect(nested.states.map((s) => s.elementId)).toContain('state-running.round.awaitingReport');
    const running = nested.states[1];
    expect([running?.description, running?.tags]).toEqual([
      'Owns CANCEL and the wall clock once, for every state inside.',
      ['busy'],
    ]);
    expect(nested.states[2]?.entry).toEqual([{ type: 'countRound' }]);
    expect(nested.states.filter((s) => s.customId !== null).map((s) => [s.key, s.customId])).toEqual([
      ['cancelling', 'cancel'],
    ]);
  });

  it("reads a box's own transitions (on, after, onDone) as leaving the whole box, and every way of writing a target", () => {
    expect(
      nested.transitions.map((t) => [t.elementId, t.eventLabel, t.guard?.type ?? null, t.target]),
    ).toEqual([
      ['edge-validating-0', 'START', null, 'running'],
      ['edge-running-0', 'CANCEL', null, 'cancelling'], // a sibling's key
      ['edge-running-1', 'RETRY', null, 'running.round'], // `.round`: a child
      ['edge-running-2', 'after wallClock', null, 'cancelling'], // `#cancel`: a custom id
      ['edge-running.round-0', 'after roundTimeout', null, 'running.deciding'], // `#loop.running.deciding`
      ['edge-running.round.starting-0', 'done: startChild', null, 'running.round.awaitingReport'],
      ['edge-running.round.starting-1', 'error: startChild', null, 'failed'],
      ['edge-running.round.awaitingReport-0', 'REPORT', null, 'running.deciding'],
      ['edge-running.deciding-0', 'onDone', null, 'done'],
      ['edge-running.deciding.checking-0', 'always', 'reportIsComplete', 'running.deciding.complete'],
      ['edge-running.deciding.checking-1', 'always', 'roundsRemain', 'running.round'],
      ['edge-running.deciding.checking-2', 'always', null, 'running.deciding.exhausted'],
      ['edge-cancelling-0', 'STOPPED', null, 'cancelled'],
    ]);
    expect(nested.transitions[8]?.event).toEqual({ kind: 'stateDone' });
    expect(nested.transitions[2]?.reenter).toBe(true);
  });

  it('keeps a flat machine as it was: each key its own name, no box', () => {
    expect(graph.states.map((s) => [s.key, s.name, s.parent, s.initial, s.customId])).toEqual(
      ['idle', 'heating', 'boiled', 'broken'].map((key) => [key, key, null, null, null]),
    );
  });
});
