import { describe, expect, it } from 'vitest';
import { ralphMachine } from '../../src/machines/ralph.machine.js';
import { generateVisualizations } from '../../src/visualize/visualizations.js';
import { stateNodeIds, transitionKeys } from '../model/coverage.js';

const files = Object.fromEntries((await generateVisualizations()).map((file) => [file.name, file.content]));
const mmd = files['ralph.mmd'] as string;
const dot = files['ralph.dot'] as string;
const svg = files['ralph.svg'] as string;
const stately = files['ralph.stately.ts'] as string;

const stateKeys = stateNodeIds(ralphMachine).map((id) => id.replace(/^ralph\./, ''));

/**
 * Every transition of the machine as the model tests name it (`ralph.round on done:startChild #0 → ralph.awaitingReport`),
 * read back into what a diagram must say: source, target, event as people read it, guard.
 */
const transitions = transitionKeys(ralphMachine).map((key) => {
  const match = /^ralph\.(\w+) on (\S+) #(\d+)(?: \[(\w+)\])? → ralph\.(\w+)$/.exec(key);
  if (match === null) throw new Error(`unexpected transition key ${key}`);
  const [, source, event, , guard, target] = match as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const [kind, name] = event.split(':') as [string, string | undefined];
  const label =
    kind === 'done' || kind === 'error' ? `${kind}: ${name}` : kind === 'after' ? `after ${name}` : event;
  return { source, target, label: guard === undefined ? label : `${label} [${guard}]` };
});

describe('the diagrams show the whole machine', () => {
  it('the machine has states and transitions to show', () => {
    expect(stateKeys).toContain('awaitingReport');
    expect(transitions.length).toBeGreaterThan(20);
  });

  it('Mermaid: every transition with its event and guard, the initial state and every final state', () => {
    expect(mmd.startsWith('stateDiagram-v2\n')).toBe(true);
    for (const t of transitions) expect(mmd).toContain(`\n  ${t.source} --> ${t.target}: ${t.label}\n`);
    expect(mmd).toContain('\n  [*] --> validating\n');
    for (const node of Object.values(ralphMachine.root.states).filter((n) => n.type === 'final'))
      expect(mmd).toContain(`\n  ${node.key} --> [*]\n`);
    for (const key of stateKeys) expect(mmd).toMatch(new RegExp(`\\n  (\\[\\*\\] --> )?${key}\\b`));
  });

  it('DOT: every state a node with id state-<key>, every transition an edge with its label, source and target', () => {
    for (const key of stateKeys)
      expect(dot).toMatch(new RegExp(`\\n  "${key}" \\[id="state-${key}", class="state `));
    for (const t of transitions)
      expect(dot).toMatch(
        new RegExp(
          `\\n  "${t.source}" -> "${t.target}" \\[id="edge-${t.source}-\\d+", class="transition from-${t.source} to-${t.target}", label="${t.label.replace(/[[\]]/g, '\\$&')}"`,
        ),
      );
  });

  it('SVG: every state is a group state-<key> of class state, every transition an edge group the report can highlight', () => {
    for (const key of stateKeys)
      expect(svg).toMatch(new RegExp(`<g id="state-${key}" class="node state[ "]`));
    const edges = [...svg.matchAll(/<g id="(edge-(\w+)-\d+)" class="edge transition from-(\w+) to-(\w+)">/g)];
    expect(edges).toHaveLength(transitions.length);
    expect(edges.every(([, , source, from]) => source === from)).toBe(true);
    expect(new Set(edges.map(([, id]) => id)).size).toBe(edges.length);
    for (const t of transitions) expect(svg).toContain(`>${t.label.replace(/&/g, '&amp;')}</text>`);
    expect(svg).toContain('<g id="edge-initial-0" class="edge initial from-initial to-validating">');
  });

  it('Stately code: every state and every guard by name', () => {
    for (const key of stateKeys) expect(stately).toMatch(new RegExp(`\\n    ${key}: \\{`));
    for (const t of transitions) {
      const guard = /\[(\w+)\]$/.exec(t.label)?.[1];
      if (guard !== undefined) expect(stately).toContain(`guard: '${guard}'`);
    }
  });
});
