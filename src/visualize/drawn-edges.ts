import { type GraphTransition, type MachineGraph, transitionLabel } from './machine-graph.js';

/**
 * One arrow of the picture: every branch of one event between the same two states, in the machine's order. Sixteen
 * refusals from `validating` to `rejected` are one arrow with sixteen guards in its label, not sixteen arrows side by
 * side. Different events between two states stay apart, each its own arrow, but for a state's loops to itself: those
 * are one loop, a line per event, as Graphviz stacks loops on one spot with their labels over each other.
 */
export interface DrawnEdge {
  /** The SVG id of the arrow: its first transition's, `edge-<source>-<n>`. */
  elementId: string;
  source: string;
  /** The target state's key; the source's own for a transition that stays in its state. */
  target: string;
  /** The transitions it stands for, at least one. */
  transitions: GraphTransition[];
}

/** The transitions grouped into arrows by source, target and event (a loop: by state), each where its first was. */
export function drawnEdges(graph: MachineGraph): DrawnEdge[] {
  const edges = new Map<string, DrawnEdge>();
  for (const t of graph.transitions) {
    const target = t.target ?? t.source;
    // Keys and event types never hold a newline, so it cannot join two different arrows into one.
    const pair = target === t.source ? t.source : `${t.source}\n${target}\n${t.eventType}`;
    const edge = edges.get(pair);
    if (edge === undefined)
      edges.set(pair, { elementId: t.elementId, source: t.source, target, transitions: [t] });
    else edge.transitions.push(t);
  }
  return [...edges.values()];
}

/** Characters a label line may hold before its guard goes to a line of its own. */
const LABEL_LINE_WIDTH = 24;

/** One transition's label lines: `event [guard]`, split into the event and the guard when too long for one line. */
function transitionLines(t: GraphTransition): string[] {
  const label = transitionLabel(t);
  return t.guard === null || label.length <= LABEL_LINE_WIDTH ? [label] : [t.eventLabel, `[${t.guard.type}]`];
}

/**
 * An arrow's label lines: each transition's event and guard as Stately writes them (`always [objectiveIsEmpty]`), a
 * guarded branch of the same event as the transition before it as `or [guard]` (the guards are tried in that order). Every line stays narrow: in a left-to-right drawing a label's width widens the gap between two columns
 * of states across the whole picture.
 */
export function edgeLabelLines(edge: DrawnEdge): string[] {
  return edge.transitions.flatMap((t, n) => {
    const before = edge.transitions[n - 1];
    return before?.eventType === t.eventType && t.guard !== null
      ? [`or [${t.guard.type}]`]
      : transitionLines(t);
  });
}

/** What hovering an arrow shows: each transition's event and guard, then its actions after a slash. */
export function edgeTooltip(edge: DrawnEdge): string {
  return edge.transitions
    .map((t) => {
      const actions = t.actions.map((a) => a.type).join(', ');
      return actions === '' ? transitionLabel(t) : `${transitionLabel(t)} / ${actions}`;
    })
    .join('\n');
}
