// Engine throughput and memory (run with --expose-gc for the memory figures): how fast the machine turns rounds over, and what a run costs in memory, with an
// in-process scripted provider so that only ralph's own work is measured. Run: npm run build && node bench/engine.mjs
import { performance } from 'node:perf_hooks';
import { createProviderRegistry, createRalphTool } from '../dist/index.js';

const agent = { id: 'bench', cwd: process.cwd() };
const cont = { status: 'continue', summary: 'step', evidence: [], nextSteps: ['next'], blocker: null };

let peak = 0;
// A bare in-process provider: the scripted provider keeps every request for tests, which a benchmark must not count.
const provider = {
  name: 'bench',
  capabilities: { structuredOutput: true, inheritsParentContext: false },
  async start(request) {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { id: `${request.runId}-${request.round}`, report: Promise.resolve(cont) };
  },
};

function toolFor(rounds) {
  const providers = createProviderRegistry();
  providers.register(provider);
  return createRalphTool({ subagentProvider: 'bench', maxRounds: rounds }, { providers });
}

async function roundsPerSecond(runs, rounds) {
  const tool = toolFor(rounds);
  const start = performance.now();
  for (let i = 0; i < runs; i += 1) await tool.execute({ objective: 'bench' }, { agent });
  const ms = performance.now() - start;
  return { runs, rounds, ms: Math.round(ms), roundsPerSecond: Math.round((runs * rounds * 1000) / ms) };
}

async function concurrent(n, rounds) {
  const tool = toolFor(rounds);
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const start = performance.now();
  peak = before;
  await Promise.all(Array.from({ length: n }, () => tool.execute({ objective: 'bench' }, { agent })));
  const ms = performance.now() - start;
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  return {
    concurrentRuns: n,
    rounds,
    ms: Math.round(ms),
    peakHeapGrowthMiB: +((peak - before) / 2 ** 20).toFixed(1),
    retainedAfterMiB: +((after - before) / 2 ** 20).toFixed(1),
  };
}

await roundsPerSecond(20, 10); // warm-up
console.log(JSON.stringify(await roundsPerSecond(200, 10)));
console.log(JSON.stringify(await roundsPerSecond(4, 256)));
console.log(JSON.stringify(await concurrent(50, 10)));
console.log(JSON.stringify(await concurrent(500, 4)));

// Retained memory over many sequential runs: flat when nothing leaks.
const tool = toolFor(4);
const samples = [];
for (let k = 0; k < 4; k += 1) {
  for (let i = 0; i < 2000; i += 1) await tool.execute({ objective: 'bench' }, { agent });
  global.gc?.();
  samples.push(+(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1));
}
console.log(JSON.stringify({ sequentialRuns: 8000, heapAfterEach2000MiB: samples }));
