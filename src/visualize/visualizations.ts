import type { AnyStateMachine } from 'xstate';
import { batchMachine } from '../machines/batch.machine.js';
import { mergeQueueMachine } from '../machines/merge-queue.machine.js';
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
export const VISUALIZATION_FILES = [
  'ralph.mmd',
  'ralph.dot',
  'ralph.svg',
  'ralph.stately.ts',
  'batch.mmd',
  'batch.dot',
  'batch.svg',
  'batch.stately.ts',
  'merge-queue.mmd',
  'merge-queue.dot',
  'merge-queue.svg',
  'merge-queue.stately.ts',
] as const;

/** The machines drawn, each under a file name stem, with where its code is (named in its Stately code). */
const DRAWN_MACHINES: readonly { stem: string; machine: AnyStateMachine; source: string }[] = [
  { stem: 'ralph', machine: ralphMachine, source: 'ralphMachine (src/machines/ralph.machine.ts)' },
  { stem: 'batch', machine: batchMachine, source: 'batchMachine (src/machines/batch.machine.ts)' },
  {
    stem: 'merge-queue',
    machine: mergeQueueMachine,
    source: 'mergeQueueMachine (src/machines/merge-queue.machine.ts)',
  },
];

/** The four files of one machine: Mermaid, DOT, SVG and Stately code, by name. */
async function machineFiles(
  stem: string,
  machine: AnyStateMachine,
  source: string,
): Promise<Record<string, string>> {
  const graph = machineGraph(machine);
  const dot = toDot(graph);
  return {
    [`${stem}.mmd`]: toMermaid(graph),
    [`${stem}.dot`]: dot,
    [`${stem}.svg`]: await dotToSvg(dot),
    [`${stem}.stately.ts`]: toStatelyCode(graph, source),
  };
}

/**
 * Every file of `visualizations/`, generated from the machines alone (the run, the batch and its merge queue): the
 * same machines give the same bytes (no time, no path, each machine's own order), so a committed copy can be checked
 * for staleness.
 */
export async function generateVisualizations(): Promise<Visualization[]> {
  const contents: Record<string, string> = {};
  for (const { stem, machine, source } of DRAWN_MACHINES)
    Object.assign(contents, await machineFiles(stem, machine, source));
  return VISUALIZATION_FILES.map((name) => ({ name, content: contents[name] ?? '' }));
}
