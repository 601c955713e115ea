import { type DrawnEdge, drawnEdges, edgeLabelLines, edgeTooltip } from './drawn-edges.js';
import type { GraphState, MachineGraph } from './machine-graph.js';
import { wrap } from './wrap.js';

/** Characters per line of a state's description inside its node. */
const DESCRIPTION_WIDTH = 26;

/** A DOT quoted string. */
const quoted = (text: string): string =>
  `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/** Text inside a DOT HTML-like label. */
const html = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `a="b", c="d"` for a node's or an edge's attribute list. */
const attributes = (attrs: [string, string][]): string =>
  attrs.map(([name, value]) => `${name}=${value.startsWith('<') ? value : quoted(value)}`).join(', ');

/** The node's (or box's) label: the state's key, what it runs, its tags, then its description in small print. */
function stateLabel(state: GraphState): string {
  const rows = [`<b>${html(state.name)}</b>`];
  const small = (text: string, color: string) => `<font point-size="9" color="${color}">${html(text)}</font>`;
  for (const invoke of state.invokes) rows.push(small(`invoke ${invoke.src}`, '#1d4ed8'));
  if (state.entry.length > 0)
    rows.push(small(`entry / ${state.entry.map((a) => a.type).join(', ')}`, '#334155'));
  if (state.exit.length > 0)
    rows.push(small(`exit / ${state.exit.map((a) => a.type).join(', ')}`, '#334155'));
  if (state.tags.length > 0) rows.push(small(`tags: ${state.tags.join(', ')}`, '#7c3aed'));
  if (state.description !== null)
    for (const row of wrap(state.description, DESCRIPTION_WIDTH)) rows.push(small(row, '#64748b'));
  return `<${rows.join('<br/>')}>`;
}

/** Whether a state is a box of other states (a compound state), drawn as a Graphviz cluster. */
const isCompound = (state: GraphState): boolean => state.initial !== null;

/** The DOT name of a compound state's cluster (Graphviz draws a subgraph as a box when its name starts `cluster`). */
const clusterName = (key: string): string => `cluster_${key}`;

/** The DOT name of a compound state's start point: the dot its entry arrow leaves from, and where edges to the box end. */
const startPoint = (key: string): string => `${key}.[*]`;

function stateNode(state: GraphState, indent: string): string {
  const classes = ['state', state.final ? 'final' : 'atomic', ...state.tags.map((tag) => `tag-${tag}`)];
  const attrs: [string, string][] = [
    ['id', state.elementId],
    ['class', classes.join(' ')],
    ['label', stateLabel(state)],
    ['tooltip', state.description ?? state.key],
  ];
  if (state.final) attrs.push(['peripheries', '2'], ['fillcolor', '#f1f5f9']);
  return `${indent}${quoted(state.key)} [${attributes(attrs)}];`;
}

/** Box fills by depth, lightest outside, so that nested boxes read apart. */
const BOX_FILLS = ['#f8fafc', '#eef2f7', '#e2e8f0'];

/**
 * A compound state as a cluster: a box with the state's label and tooltip (the SVG group `state-<key>`, class `state
 * compound`), its start point with the entry arrow to its initial child, then its children, boxes in boxes.
 */
function stateCluster(state: GraphState, graph: MachineGraph, depth: number): string[] {
  const indent = '  '.repeat(depth + 1);
  const initial = state.initial as string;
  const classes = ['state', 'compound', ...state.tags.map((tag) => `tag-${tag}`)];
  const attrs: [string, string][] = [
    ['id', state.elementId],
    ['class', classes.join(' ')],
    ['label', stateLabel(state)],
    ['tooltip', state.description ?? state.key],
    ['style', 'rounded,filled'],
    ['fillcolor', BOX_FILLS[Math.min(depth, BOX_FILLS.length - 1)] as string],
    ['color', '#64748b'],
    ['labeljust', 'l'],
    ['fontsize', '13'],
  ];
  const start: [string, string][] = [
    ['id', `initial-${state.key}`],
    ['class', 'initial'],
    ['shape', 'circle'],
    ['style', 'filled'],
    ['fillcolor', '#0f172a'],
    ['label', ''],
    ['width', '0.14'],
    ['tooltip', `${state.key} starts in ${initial}`],
  ];
  const entry: [string, string][] = [
    ['id', `edge-initial-${state.key}-0`],
    ['class', `initial from-initial-${state.key} to-${initial}`],
    ...headOf(graph, initial, state.key),
  ];
  return [
    `${indent}subgraph ${quoted(clusterName(state.key))} {`,
    `${indent}  graph [${attributes(attrs)}];`,
    `${indent}  ${quoted(startPoint(state.key))} [${attributes(start)}];`,
    `${indent}  ${quoted(startPoint(state.key))} -> ${quoted(endpoint(graph, initial))} [${attributes(entry)}];`,
    ...statesIn(graph, state.key, depth + 1),
    `${indent}}`,
  ];
}

/** The states whose parent is `parent` (null: the root's), each a node or a cluster. */
function statesIn(graph: MachineGraph, parent: string | null, depth: number): string[] {
  return graph.states
    .filter((state) => state.parent === parent)
    .flatMap((state) =>
      isCompound(state) ? stateCluster(state, graph, depth) : [stateNode(state, '  '.repeat(depth + 1))],
    );
}

/** The DOT node an edge to or from a state is drawn at: the state's node, or a compound state's start point. */
function endpoint(graph: MachineGraph, key: string): string {
  const state = graph.states.find((s) => s.key === key);
  return state !== undefined && isCompound(state) ? startPoint(key) : key;
}

/** Whether `key` is `box` or inside it. */
const isWithin = (key: string, box: string): boolean => key === box || key.startsWith(`${box}.`);

/** Graphviz attributes that end an edge to a compound state at its box (unless it comes from inside the box). */
function headOf(graph: MachineGraph, target: string, source: string): [string, string][] {
  return endpoint(graph, target) !== target && !isWithin(source, target)
    ? [['lhead', clusterName(target)]]
    : [];
}

/** Graphviz attributes that start an edge from a compound state at its box (unless it goes inside the box). */
function tailOf(graph: MachineGraph, source: string, target: string): [string, string][] {
  return endpoint(graph, source) !== source && !isWithin(target, source)
    ? [['ltail', clusterName(source)]]
    : [];
}

/** An arrow's label: its one line as a quoted string, or its lines left-aligned under each other. */
function edgeLabel(edge: DrawnEdge): string {
  const lines = edgeLabelLines(edge);
  return lines.length === 1
    ? (lines[0] as string)
    : `<${lines.map((l) => `${html(l)}<br align="left"/>`).join('')}>`;
}

function drawnEdge(edge: DrawnEdge, graph: MachineGraph): string {
  const { source, target } = edge;
  // The root's own transitions are no state's: a class of their own keeps them apart from the states' edges.
  const kind = source === graph.id ? 'root-transition' : 'transition';
  const attrs: [string, string][] = [
    ['id', edge.elementId],
    ['class', `${kind} from-${source} to-${target}`],
    ['label', edgeLabel(edge)],
    ['tooltip', edgeTooltip(edge)],
    ...tailOf(graph, source, target),
    ...headOf(graph, target, source),
  ];
  if (edge.transitions.every((t) => t.event.kind === 'always')) attrs.push(['style', 'dashed']);
  return `  ${quoted(endpoint(graph, source))} -> ${quoted(endpoint(graph, target))} [${attributes(attrs)}];`;
}

/**
 * The machine's final states (of the root) together in one column, in a light frame of their own (a cluster named by
 * the states it holds, not a state of the machine): where a reader looks for how a run ends, rather than each wherever
 * its first arrow left it. They are declared with the other states and only gathered here.
 */
function finalColumn(graph: MachineGraph): string[] {
  const finals = graph.states.filter((state) => state.final && state.parent === null);
  if (finals.length < 2) return [];
  const frame: [string, string][] = [
    ['id', 'final-states'],
    ['class', 'final-states'],
    ['label', ''],
    ['tooltip', `final states: ${finals.map((s) => s.key).join(', ')}`],
    ['style', 'rounded,dashed'],
    ['color', '#cbd5e1'],
  ];
  return [
    '  subgraph "cluster_final-states" {',
    `    graph [${attributes(frame)}];`,
    '    rank="same";',
    `    ${finals.map((s) => `${quoted(s.key)};`).join(' ')}`,
    '  }',
  ];
}

/**
 * The machine as a Graphviz digraph. Every state node carries `id="state-<key>"` and class `state`, every edge
 * `id="edge-<source>-<n>"` and classes `transition from-<source> to-<target>`: Graphviz copies them into the SVG, where
 * the run report highlights the path a run took with CSS alone. The guarded branches of one event between the same two
 * states are one edge (see drawn-edges.ts), and the root's final states one column. Eventless transitions are dashed. A compound state is
 * a box (a cluster, `id="state-<key>"`, class `state compound`) around its children, with a start point of its own;
 * an edge to or from it ends at the box's border.
 */
export function toDot(graph: MachineGraph): string {
  const rootEntry: [string, string][] = [
    ['id', 'edge-initial-0'],
    ['class', `initial from-initial to-${graph.initial}`],
    ...headOf(graph, graph.initial, ''),
  ];
  const out = [
    `// ${graph.id}: generated by ralph viz from the machine; do not edit`,
    `digraph ${quoted(graph.id)} {`,
    `  graph [rankdir="LR", nodesep="0.2", ranksep="0.3", fontname="Helvetica", bgcolor="white"${graph.states.some(isCompound) ? ', compound="true"' : ''}];`,
    '  node [shape="box", style="rounded,filled", fillcolor="#ffffff", color="#334155", fontname="Helvetica", fontsize="13", margin="0.15,0.08"];',
    '  edge [color="#475569", fontname="Helvetica", fontsize="9", fontcolor="#0f172a", arrowsize="0.7"];',
    '',
    '  "[*]" [id="initial", class="initial", shape="circle", style="filled", fillcolor="#0f172a", label="", width="0.18", tooltip="start"];',
    `  "[*]" -> ${quoted(endpoint(graph, graph.initial))} [${attributes(rootEntry)}];`,
    '',
    ...statesIn(graph, null, 0),
    ...finalColumn(graph),
    ...(graph.transitions.some((t) => t.source === graph.id)
      ? [
          `  ${quoted(graph.id)} [id="machine-root", class="root", shape="note", fillcolor="#fefce8", label="any state", tooltip="transitions of the machine itself, taken in whichever state the run is in"];`,
        ]
      : []),
    '',
    ...drawnEdges(graph).map((edge) => drawnEdge(edge, graph)),
    '}',
  ];
  return `${out.join('\n')}\n`;
}
