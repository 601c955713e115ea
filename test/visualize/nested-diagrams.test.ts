import { instance } from '@viz-js/viz';
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { toDot } from '../../src/visualize/dot.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { toMermaid } from '../../src/visualize/mermaid.js';
import { toStatelyCode } from '../../src/visualize/stately-code.js';
import { dotToSvg } from '../../src/visualize/svg.js';
import { nestedMachine } from '../fixtures/machine/nested.machine.js';
import { stateNodeIds, transitionKeys } from '../model/coverage.js';
import { evaluateStatelyCode } from './evaluate-stately.js';

const graph = machineGraph(nestedMachine);
const dot = toDot(graph);
const svg = await dotToSvg(dot);
const boxes = ['running', 'running.round', 'running.deciding'];

/** The smallest rectangle around every point of an SVG group's first shape (a box's border or a node's outline). */
function bounds(elementId: string): { left: number; top: number; right: number; bottom: number } {
  const group = new RegExp(`<g id="${elementId.replace(/\./g, '\\.')}" class="[^"]*">([\\s\\S]*?)</g>`).exec(
    svg,
  );
  const shape = /<(?:path|polygon)[^>]* (?:d|points)="([^"]+)"/.exec(group?.[1] ?? '');
  if (shape === null) throw new Error(`no shape for ${elementId}`);
  const numbers = (shape[1] as string).match(/-?\d+(?:\.\d+)?/g)?.map(Number) ?? [];
  const xs = numbers.filter((_, i) => i % 2 === 0);
  const ys = numbers.filter((_, i) => i % 2 === 1);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
}

/** Whether the shape of `inner` lies inside the box of `outer`. */
function isInside(inner: string, outer: string): boolean {
  const a = bounds(inner);
  const b = bounds(outer);
  return a.left > b.left && a.top > b.top && a.right < b.right && a.bottom < b.bottom;
}

describe('the DOT of a nested machine', () => {
  it('draws each compound state as a cluster inside its parent, with its label, tooltip and an entry arrow', () => {
    expect(dot).toContain('compound="true"');
    expect(dot).toContain(
      '\n  subgraph "cluster_running" {\n    graph [id="state-running", class="state compound tag-busy", label=<<b>running</b>',
    );
    expect(dot).toContain('\n    subgraph "cluster_running.round" {\n      graph [id="state-running.round"');
    expect(dot).toContain('tooltip="Owns CANCEL and the wall clock once, for every state inside."');
    expect(dot).toContain(
      '\n      "running.round.[*]" -> "running.round.starting" [id="edge-initial-running.round-0", class="initial from-initial-running.round to-running.round.starting"];',
    );
    expect(dot).toContain(
      '\n      "running.round.awaitingReport" [id="state-running.round.awaitingReport", class="state atomic tag-waiting", label=<<b>awaitingReport</b>',
    );
  });

  it("starts an edge of a box at the box's border and ends an edge to a box at its border", () => {
    expect(dot).toContain(
      '\n  "running.[*]" -> "cancelling" [id="edge-running-0", class="transition from-running to-cancelling", label="CANCEL", tooltip="CANCEL", ltail="cluster_running"];',
    );
    expect(dot).toContain(
      '\n  "running.round.[*]" -> "running.deciding.[*]" [id="edge-running.round-0", class="transition from-running.round to-running.deciding", label="after roundTimeout", tooltip="after roundTimeout", ltail="cluster_running.round", lhead="cluster_running.deciding"];',
    );
    // From a box into a box inside it: no ltail, which Graphviz would refuse (the head is inside the tail's box).
    expect(dot).toContain(
      '\n  "running.[*]" -> "running.round.[*]" [id="edge-running-1", class="transition from-running to-running.round", label="RETRY", tooltip="RETRY", lhead="cluster_running.round"];',
    );
  });

  it('renders in the real Graphviz with no warning: a cluster group per box, titled, boxes within boxes', async () => {
    const rendered = (await instance()).render(dot, { format: 'svg', engine: 'dot' });
    expect([rendered.status, rendered.errors]).toEqual(['success', []]);
    const clusters = [
      ...svg.matchAll(/<g id="(state-[^"]+)" class="cluster state compound[^"]*">\n<title>([^<]+)<\/title>/g),
    ];
    expect(clusters.map(([, id, title]) => [id, title])).toEqual(
      boxes.map((key) => [`state-${key}`, `cluster_${key}`]),
    );
    expect(svg).toContain('<a xlink:title="Owns CANCEL and the wall clock once, for every state inside.">');
    expect(isInside('state-running.round', 'state-running')).toBe(true);
    expect(isInside('state-running.deciding', 'state-running')).toBe(true);
    expect(isInside('state-running.round', 'state-running.deciding')).toBe(false);
    for (const state of graph.states.filter((s) => s.initial === null)) {
      expect(svg).toContain(
        `<g id="${state.elementId}" class="node state ${state.final ? 'final' : 'atomic'}`,
      );
      if (state.parent !== null) expect(isInside(state.elementId, `state-${state.parent}`)).toBe(true);
      else expect(isInside(state.elementId, 'state-running')).toBe(false);
    }
    for (const t of graph.transitions)
      expect(svg).toContain(
        `<g id="${t.elementId}" class="edge transition from-${t.source} to-${t.target ?? t.source}">`,
      );
  });
});

describe('the Mermaid of a nested machine', () => {
  const mmd = toMermaid(graph);

  it('writes each compound state as a composite state with its own start, inside its parent', () => {
    expect(mmd).toContain(
      [
        '  state running {',
        '    state round {',
        '      [*] --> starting',
        '      starting --> awaitingReport: done: startChild',
        '    }',
        '    state deciding {',
        '      [*] --> checking',
        '      checking --> complete: always [reportIsComplete]',
        '      checking --> exhausted: always',
        '      complete --> [*]',
        '      exhausted --> [*]',
        '    }',
        '    [*] --> round',
        '    round --> deciding: after roundTimeout',
        '    awaitingReport --> deciding: REPORT',
        '    checking --> round: always [roundsRemain]',
        '  }',
      ].join('\n'),
    );
  });

  it('writes a transition between boxes at the top, after the boxes, and a box says what it does in comments', () => {
    expect(mmd.indexOf('\n  running --> cancelling: CANCEL\n')).toBeGreaterThan(
      mmd.indexOf('\n  state running {'),
    );
    expect(mmd).toContain('\n  [*] --> validating\n');
    expect(mmd).toContain('\n  starting --> failed: error: startChild\n');
    expect(mmd).toContain('\n  deciding --> done: onDone\n');
    expect(mmd).toContain('\n  %% running.round: entry / countRound\n');
    expect(mmd).toContain('\n  awaitingReport: awaitingReport\n  awaitingReport: tags: waiting\n');
  });

  it('names a state by its path where its own key is not unique', () => {
    const twice = createMachine({
      id: 'twice',
      initial: 'a',
      states: {
        a: { initial: 'idle', states: { idle: { on: { GO: '#twice.b.idle' } } } },
        b: { initial: 'idle', states: { idle: {} } },
      },
    });
    const text = toMermaid(machineGraph(twice));
    expect(text).toContain('\n  state a {\n    [*] --> a_idle\n  }\n');
    expect(text).toContain('\n  a_idle --> b_idle: GO\n');
  });
});

describe('the Stately code of a nested machine', () => {
  const code = toStatelyCode(graph, 'the nested fixture');
  const machine = evaluateStatelyCode(code);

  it('runs back into a machine with the same graph, state ids and transitions', () => {
    expect(machineGraph(machine)).toEqual(graph);
    expect(stateNodeIds(machine)).toEqual(stateNodeIds(nestedMachine));
    expect(transitionKeys(machine)).toEqual(transitionKeys(nestedMachine));
  });

  it('writes nested states literals, with targets by key, .child, custom id and #id.path', () => {
    expect(code).toContain("\n    running: {\n      description: 'Owns CANCEL");
    expect(code).toContain("\n      initial: 'round',\n      states: {\n        round: {");
    expect(code).toContain("RETRY: { target: '.round', reenter: true }");
    expect(code).toContain("onError: { target: '#loop.failed' }");
    expect(code).toContain("onDone: { target: '#loop.done' }");
    expect(code).toContain("cancelling: { id: 'cancel', entry: 'stopChild'");
  });
});

describe("a root's transition with a target", () => {
  const stoppable = createMachine({
    id: 'stoppable',
    initial: 'busy',
    on: { STOP: '.stopped' },
    states: {
      busy: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: {} } },
      stopped: { type: 'final' },
    },
  });
  const stoppableGraph = machineGraph(stoppable);

  it('is drawn from the machine itself to its target, in every output, and round-trips as `.target`', () => {
    expect(stoppableGraph.transitions[0]).toMatchObject({
      elementId: 'edge-stoppable-0',
      source: 'stoppable',
      target: 'stopped',
    });
    expect(toDot(stoppableGraph)).toContain(
      '\n  "stoppable" -> "stopped" [id="edge-stoppable-0", class="root-transition from-stoppable to-stopped", label="STOP"',
    );
    // The machine starts in a box: its entry arrow ends at the box's border.
    expect(toDot(stoppableGraph)).toContain(
      '\n  "[*]" -> "busy.[*]" [id="edge-initial-0", class="initial from-initial to-busy", lhead="cluster_busy"];',
    );
    expect(toMermaid(stoppableGraph)).toContain('\n  stoppable --> stopped: STOP\n');
    const code = toStatelyCode(stoppableGraph, 'test');
    expect(code).toContain("on: { STOP: { target: '.stopped' } }");
    expect(machineGraph(evaluateStatelyCode(code))).toEqual(stoppableGraph);
  });
});
