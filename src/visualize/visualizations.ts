import { ralphMachine } from '../machines/ralph.machine.js';
import { toDot } from './dot.js';
import { machineGraph } from './machine-graph.js';
import { toMermaid } from './mermaid.js';
import { toStatelyCode } from './stately-code.js';
import { dotToSvg } from './svg.js';

/** One generated file of `visualizations/`: its name there and its exact content. */
export interface Visualization {
  name: string;
  content: string;
}

/** The names of the files `ralph viz` writes, in the order it writes them (the folder's README is written by hand). */
export const VISUALIZATION_FILES = ['ralph.mmd', 'ralph.dot', 'ralph.svg', 'ralph.stately.ts'] as const;

/**
 * Every file of `visualizations/`, generated from `ralphMachine` alone: the same machine gives the same bytes (no
 * time, no path, the machine's own order), so a committed copy can be checked for staleness.
 */
export async function generateVisualizations(): Promise<Visualization[]> {
  const graph = machineGraph(ralphMachine);
  const dot = toDot(graph);
  const contents: Record<(typeof VISUALIZATION_FILES)[number], string> = {
    'ralph.mmd': toMermaid(graph),
    'ralph.dot': dot,
    'ralph.svg': await dotToSvg(dot),
    'ralph.stately.ts': toStatelyCode(graph, 'ralphMachine (src/machines/ralph.machine.ts)'),
  };
  return VISUALIZATION_FILES.map((name) => ({ name, content: contents[name] }));
}
