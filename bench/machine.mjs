// The run machine alone: 256-round runs of `ralphMachine` with instant actors (a child that starts at once and
// reports `continue` at once), no tool, engine, provider or rendering around it, so that a change to the chart is
// measured by itself. CPU time of this process (user + system, `process.cpuUsage`), which a loaded machine moves far
// less than wall time; interleaved pairs, medians. Run: npm run build && node bench/machine.mjs [--runs 8]
// [--pairs 11] [--before DIR]: DIR is another build's dist/ (e.g. of the base commit), run in the same pairs.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createActor, fromPromise, toPromise } from 'xstate';
import { ralphMachine } from '../dist/index.js';
import { finish, log, median, numberFlag, row, stringFlag } from './lib.mjs';

const beforeDir = stringFlag('before');
const runs = numberFlag('runs', 8);
const pairs = numberFlag('pairs', 11);
const rounds = 256;
const cont = { status: 'continue', summary: 'step', evidence: [], nextSteps: ['next'], blocker: null };
const agent = { id: 'bench', cwd: process.cwd() };
const input = {
  runId: 'bench',
  args: { objective: 'bench', maxRounds: rounds },
  agent,
  provider: { name: 'bench', registered: true, structuredOutput: true, inheritsParentContext: false },
  maxRounds: rounds,
  maxHandoffChars: 16_384,
  terminationGraceMs: 5_000,
  maxTotalAgents: 100_000,
};

/** A build's machine with instant actors: the chart's own work is all a round costs. */
const instant = (machine) =>
  machine.provide({
    actors: {
      startChild: fromPromise(async ({ input: request }) => ({ childId: `child-${request.round}` })),
      awaitReport: fromPromise(async () => ({ output: cont, usage: null })),
    },
  });

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** CPU µs a round over `runs` whole runs of one machine. */
async function perRound(machine) {
  const start = cpuMs();
  for (let i = 0; i < runs; i += 1) {
    const actor = createActor(machine, { input });
    actor.start();
    const output = await toPromise(actor);
    if (!output.ok || output.envelope.result.rounds !== rounds)
      throw new Error('the run did not go all the rounds');
  }
  return ((cpuMs() - start) * 1000) / (runs * rounds);
}

const machine = instant(ralphMachine);
const before =
  beforeDir === undefined
    ? undefined
    : instant((await import(pathToFileURL(resolve(beforeDir, 'index.js')).href)).ralphMachine);

await perRound(machine);
if (before !== undefined) await perRound(before);
const after = [];
const base = [];
for (let i = 0; i < pairs; i += 1) {
  after.push(await perRound(machine));
  if (before !== undefined) base.push(await perRound(before));
  log(
    `pair ${i + 1}: ${after.at(-1).toFixed(1)} µs/round` +
      (before === undefined ? '' : `, before ${base.at(-1).toFixed(1)} µs/round`),
  );
}
finish([
  ...(before === undefined
    ? []
    : [row('Machine alone: the --before build', +median(base).toFixed(1), 'µs/round (CPU)', '(base)', null)]),
  row(
    'Machine alone, instant actors',
    +median(after).toFixed(1),
    'µs/round (CPU)',
    '(part)',
    null,
    `${runs} runs × ${rounds} rounds`,
  ),
]);
