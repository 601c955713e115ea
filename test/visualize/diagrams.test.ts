import { describe, expect, it } from 'vitest';
import { getStateNodes } from 'xstate/graph';
import { ralphMachine } from '../../src/machines/ralph.machine.js';
import { generateVisualizations } from '../../src/visualize/visualizations.js';
import { stateNodeIds, transitionKeys } from '../model/coverage.js';

const files = Object.fromEntries((await generateVisualizations()).map((file) => [file.name, file.content]));
const mmd = files['ralph.mmd'] as string;
const dot = files['ralph.dot'] as string;
const svg = files['ralph.svg'] as string;
const stately = files['ralph.stately.ts'] as string;

/** Every state of the machine at any depth, by its path (`awaitingReport`; `running.round.awaitingReport` nested). */
const nodes = getStateNodes(ralphMachine.root);
const keyOfId = new Map(nodes.map((node) => [node.id, node.path.join('.')]));
const stateKeys = stateNodeIds(ralphMachine).map((id) => keyOfId.get(id) as string);
/** The boxes: compound states, drawn as clusters. */
const boxes = new Set(nodes.filter((node) => node.type === 'compound').map((node) => node.path.join('.')));
const depthOf = (key: string): number => key.split('.').length - 1;
/** A state's name in Mermaid: its own key where it is unique, else its path with `_` for `.`. */
const mermaidName = (key: string): string => {
  const own = key.split('.').at(-1) as string;
  return stateKeys.filter((k) => k.split('.').at(-1) === own).length === 1 ? own : key.replace(/\./g, '_');
};
/** The DOT node an edge to or from a state is drawn at: its own, or a box's start point. */
const endpoint = (key: string): string => (boxes.has(key) ? `${key}.[*]` : key);
const pattern = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every transition of the machine as the model tests name it (`ralph.round on done:runRound #0 → ralph.reviewingReport`),
 * read back into what a diagram must say: source, target (by path), event as people read it, guard.
 */
const transitions = transitionKeys(ralphMachine).map((key) => {
  const match = /^(\S+) on (\S+) #(\d+)(?: \[(\w+)\])? → (\S+)$/.exec(key);
  const [source, target] = [keyOfId.get(match?.[1] ?? ''), keyOfId.get(match?.[5] ?? '')];
  if (match === null || source === undefined || target === undefined)
    throw new Error(`unexpected transition key ${key}`);
  const [, , event, , guard] = match as unknown as [string, string, string, string, string | undefined];
  const [kind, name] = event.split(':') as [string, string | undefined];
  // A box's `onDone` is the event XState raises when one of its final children is reached.
  const label = event.startsWith('xstate.done.state.')
    ? 'onDone'
    : kind === 'done' || kind === 'error'
      ? `${kind}: ${name}`
      : kind === 'after'
        ? `after ${name}`
        : event;
  return { source, target, event: label, guard, label: guard === undefined ? label : `${label} [${guard}]` };
});

/** A DOT tooltip's lines (its transitions), each without the actions after its slash. */
const tooltipLines = (tooltip = ''): string[] =>
  tooltip.split('\\n').map((line) => line.split(' / ')[0] as string);

describe('the diagrams show the whole machine', () => {
  it('the machine has states and transitions to show', () => {
    expect(stateKeys).toContain('running.round.awaitingReport');
    expect(transitions.length).toBeGreaterThan(20);
  });

  it('Mermaid: every transition with its event and guard, the initial state and every final state', () => {
    expect(mmd.startsWith('stateDiagram-v2\n')).toBe(true);
    for (const t of transitions)
      expect(mmd).toMatch(
        new RegExp(`\\n +${pattern(`${mermaidName(t.source)} --> ${mermaidName(t.target)}: ${t.label}`)}\\n`),
      );
    expect(mmd).toContain('\n  [*] --> validating\n');
    for (const node of Object.values(ralphMachine.root.states).filter((n) => n.type === 'final'))
      expect(mmd).toContain(`\n  ${node.key} --> [*]\n`);
    for (const key of stateKeys)
      expect(mmd).toMatch(
        depthOf(key) === 0
          ? new RegExp(`\\n  (\\[\\*\\] --> |state )?${key}\\b`)
          : new RegExp(`\\n +(\\[\\*\\] --> |state )?${mermaidName(key)}\\b`),
      );
  });

  it('DOT: every state a node with id state-<key>, every transition an edge with its label, source and target', () => {
    for (const key of stateKeys) {
      const indent = '  '.repeat(depthOf(key) + 1);
      expect(dot).toMatch(
        boxes.has(key)
          ? new RegExp(
              `\\n${indent}subgraph "cluster_${pattern(key)}" \\{\\n${indent}  graph \\[id="state-${pattern(key)}", class="state compound`,
            )
          : new RegExp(`\\n${indent}"${pattern(key)}" \\[id="state-${pattern(key)}", class="state `),
      );
    }
    // The branches of one event between the same two states are one edge: its label lists their guards, its
    // tooltip every branch whole.
    for (const t of transitions) {
      const edges = [
        ...dot.matchAll(
          new RegExp(
            `\\n  "${pattern(endpoint(t.source))}" -> "${pattern(endpoint(t.target))}" \\[id="edge-${pattern(t.source)}-\\d+", class="transition from-${pattern(t.source)} to-${pattern(t.target)}", label=(.*), tooltip="([^"]*)"`,
            'g',
          ),
        ),
      ];
      const [, label, tooltip] = edges.find(([, , tooltip]) => tooltipLines(tooltip).includes(t.label)) ?? [];
      expect(tooltip, t.label).toBeDefined();
      expect(label).toContain(t.guard === undefined ? t.event : `[${t.guard}]`);
    }
  });

  it('SVG: every state is a group state-<key> of class state, every transition an edge group the report can highlight', () => {
    for (const key of stateKeys)
      expect(svg).toMatch(
        new RegExp(
          `<g id="state-${pattern(key)}" class="${boxes.has(key) ? 'cluster state compound' : 'node state'}[ "]`,
        ),
      );
    const edges = [
      ...svg.matchAll(/<g id="(edge-([\w.]+)-\d+)" class="edge transition from-([\w.]+) to-([\w.]+)">/g),
    ];
    // One edge per event between two states, however many guarded branches it has.
    expect(edges).toHaveLength(new Set(transitions.map((t) => `${t.source} ${t.target} ${t.event}`)).size);
    expect(edges.every(([, , source, from]) => source === from)).toBe(true);
    expect(new Set(edges.map(([, id]) => id)).size).toBe(edges.length);
    for (const t of transitions)
      expect(svg).toMatch(
        t.guard === undefined
          ? new RegExp(`>${pattern(t.label.replace(/&/g, '&amp;'))}</text>`)
          : new RegExp(`>(${pattern(t.event)} |or )?\\[${t.guard}\\]</text>`),
      );
    expect(svg).toContain('<g id="edge-initial-0" class="edge initial from-initial to-validating">');
  });

  it('Stately code: every state and every guard by name', () => {
    for (const key of stateKeys) {
      const own = key.split('.').at(-1) as string;
      expect(stately).toMatch(
        depthOf(key) === 0
          ? new RegExp(`\\n    ${key}: \\{`)
          : new RegExp(`(\\n${'    '.repeat(depthOf(key) + 1)}|\\{ |, )${own}: \\{`),
      );
    }
    for (const t of transitions) {
      const guard = /\[(\w+)\]$/.exec(t.label)?.[1];
      if (guard !== undefined) expect(stately).toMatch(new RegExp(`guard: (\\{ type: )?'${guard}'`));
    }
  });
});
