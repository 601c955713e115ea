import { createActor, waitFor } from 'xstate';
import { createRunRecorder } from '../../src/inspect/recorder.js';
import { toDot } from '../../src/visualize/dot.js';
import { machineGraph } from '../../src/visualize/machine-graph.js';
import { dotToSvg } from '../../src/visualize/svg.js';
import { nestedMachine } from '../fixtures/machine/nested.machine.js';

/** The nested fixture machine's diagram, as `ralph viz` would draw it. */
export const nestedSvg = (): Promise<string> => dotToSvg(toDot(machineGraph(nestedMachine)));

/**
 * The recording (its lines) of a run of the nested fixture machine, made by the run recorder: two rounds (the first
 * report leaves rounds to go), then CANCEL in the second; it stays in `cancelling`, not settled.
 */
export async function recordNestedRun(): Promise<string[]> {
  const lines: string[] = [];
  const recorder = createRunRecorder(
    { write: (line: string) => lines.push(line.trimEnd()) },
    { runId: 'nested-run', machine: nestedMachine, maxResultChars: 1000 },
  );
  const actor = createActor(nestedMachine, { inspect: (event) => recorder.inspect(event) }).start();
  const awaitingReport = () => waitFor(actor, (s) => s.matches({ running: { round: 'awaitingReport' } }));
  actor.send({ type: 'START' });
  await awaitingReport();
  actor.send({ type: 'REPORT' });
  await awaitingReport();
  actor.send({ type: 'CANCEL' });
  recorder.close();
  actor.stop();
  return lines;
}
