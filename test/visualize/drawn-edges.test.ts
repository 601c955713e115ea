import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { toDot } from '../../src/visualize/dot.js';
import { drawnEdges, edgeLabelLines, edgeTooltip } from '../../src/visualize/drawn-edges.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { toMermaid } from '../../src/visualize/mermaid.js';

// A door that refuses a bad key three ways, all to `refused`, and is also refused by a timeout: three guarded
// branches of one event and another event between the same two states; and two events it hears without moving.
const door = createMachine({
  id: 'door',
  initial: 'checking',
  states: {
    checking: {
      on: { KNOCK: { actions: 'listen' }, RING: { guard: 'isLoud' } },
      always: [
        { guard: 'keyIsMissing', target: 'refused', actions: 'refuse' },
        { guard: 'keyIsBent', target: 'refused' },
        { guard: 'keyBelongsToAnotherDoorEntirely', target: 'refused' },
        { target: 'open' },
      ],
      after: { 1000: 'refused' },
    },
    open: { type: 'final' },
    refused: { type: 'final' },
  },
});
const graph = machineGraph(door);

describe('the arrows of a picture', () => {
  it('draws the guarded branches of one event between two states as one arrow, and another event apart', () => {
    const edges = drawnEdges(graph);
    expect(edges.map((e) => [e.elementId, e.source, e.target, e.transitions.length])).toEqual([
      ['edge-checking-0', 'checking', 'checking', 2], // KNOCK and RING: one loop
      ['edge-checking-2', 'checking', 'refused', 1], // after 1000ms
      ['edge-checking-3', 'checking', 'refused', 3], // the three refusals
      ['edge-checking-6', 'checking', 'open', 1],
    ]);
    const [loop, timeout, refusals] = edges;
    if (loop === undefined || timeout === undefined || refusals === undefined)
      throw new Error('an arrow is missing');
    if (refusals === undefined) throw new Error('no refusal arrow');
    // A line too long for a column gap puts its guard under its event.
    expect(edgeLabelLines(refusals)).toEqual([
      'always [keyIsMissing]',
      'or [keyIsBent]',
      'or [keyBelongsToAnotherDoorEntirely]',
    ]);
    expect(edgeLabelLines(timeout)).toEqual(['after 1000ms']);
    expect(edgeLabelLines(loop)).toEqual(['KNOCK', 'RING [isLoud]']);
    expect(edgeTooltip(refusals)).toBe(
      'always [keyIsMissing] / refuse\nalways [keyIsBent]\nalways [keyBelongsToAnotherDoorEntirely]',
    );
  });

  it('gives the DOT one edge per arrow, its lines left-aligned, every branch in its tooltip', () => {
    const dot = toDot(graph);
    expect(dot.match(/"checking" -> "refused"/g)).toHaveLength(2);
    expect(dot).toContain(
      '"checking" -> "checking" [id="edge-checking-0", class="transition from-checking to-checking", label=<KNOCK<br align="left"/>RING [isLoud]<br align="left"/>>, tooltip="KNOCK / listen\\nRING [isLoud]"];',
    );
    expect(dot).toContain(
      '"checking" -> "refused" [id="edge-checking-3", class="transition from-checking to-refused", label=<always [keyIsMissing]<br align="left"/>or [keyIsBent]<br align="left"/>or [keyBelongsToAnotherDoorEntirely]<br align="left"/>>, tooltip="always [keyIsMissing] / refuse\\nalways [keyIsBent]\\nalways [keyBelongsToAnotherDoorEntirely]", style="dashed"];',
    );
    // The final states stand together in a frame of their own, which is no state.
    expect(dot).toContain(
      '\n  subgraph "cluster_final-states" {\n    graph [id="final-states", class="final-states", label="", tooltip="final states: open, refused", style="rounded,dashed", color="#cbd5e1"];\n    rank="same";\n    "open"; "refused";\n  }\n',
    );
  });

  it('leaves Mermaid a line per transition, as Stately and GitHub read it', () => {
    const mmd = toMermaid(graph);
    expect(mmd.match(/\n {2}checking --> refused: /g)).toHaveLength(4);
    expect(mmd.match(/\n {2}checking --> checking: /g)).toHaveLength(2);
  });
});
