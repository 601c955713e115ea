// Target 6, at scale (run with --expose-gc). Memory: 1,000 concurrent runs each suspended on its first child, whose
// report never settles until the benchmark releases it; heapUsed after a full gc, minus the baseline taken after a
// warm-up with the tool already built, divided by 1,000. Time: N concurrent runs of an instant provider (4 rounds
// each) settle, 3,000 runs a measure at every N (30 waves of 100, 3 of 1,000, 1 of 3,000); the time per run at
// 1,000 and 3,000 against 100 (flat when the ratio stays near 1; the target reads "flat" as ≤ 1.25×, room for
// noise). Medians of --batches measures each.
// Run: npm run build && node --expose-gc bench/scale.mjs [--batches 2] [--snapshots DIR] [--only N] [--cpu]
// (--cpu: the times in this process's CPU time, not wall time: on a loaded machine the figure to trust).
// [--before DIR]: another build's dist/ (e.g. of the base commit), measured in the same process, alternated.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import {
  createChildRoundActors,
  createProviderRegistry,
  createRalphTool,
  ralphMachine,
} from '../dist/index.js';
import { finish, log, median, clock as now, numberFlag, row, stringFlag } from './lib.mjs';

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
const suspended = numberFlag('suspended', 1000);
const batches = numberFlag('batches', 2);
// --snapshots DIR: heap snapshots before and while the runs are suspended, for bench/profile.mjs --minus.
const snapshotAt = process.argv.indexOf('--snapshots');
// --only N: only the time measure at N concurrent runs (for node --cpu-prof).
const onlyCount = process.argv.includes('--only') ? numberFlag('only', 0) : undefined;
const snapshotDir = snapshotAt === -1 ? undefined : process.argv[snapshotAt + 1];
const beforeDir = stringFlag('before');
const before =
  beforeDir === undefined ? undefined : await import(pathToFileURL(resolve(beforeDir, 'index.js')).href);
const agent = { id: 'bench', cwd: process.cwd() };
const cont = { status: 'continue', summary: 'step', evidence: [], nextSteps: ['next'], blocker: null };

/** A tool of one build (this one, or the --before one) over `provider`. */
function toolWith(provider, maxRounds, build = { createProviderRegistry, createRalphTool }) {
  const providers = build.createProviderRegistry();
  providers.register(provider);
  return build.createRalphTool({ subagentProvider: provider.name, maxRounds }, { providers });
}

// Memory of suspended runs: each child's report waits on a release the benchmark holds.
let releases = [];
let started = 0;
let allStarted = () => {};
const held = {
  name: 'held',
  capabilities: { structuredOutput: true, inheritsParentContext: false },
  async start(request) {
    let release;
    const report = new Promise((resolve) => {
      release = () => resolve({ ...cont, status: 'complete', evidence: ['released'], nextSteps: [] });
    });
    releases.push(release);
    started += 1;
    if (started === target) allStarted();
    return { id: `${request.runId}-${request.round}`, report };
  },
};
let target = 0;
const heldTool = toolWith(held, 4);
const heldToolBefore = before && toolWith(held, 4, before);

async function suspendedHeap(n, tool = heldTool) {
  releases = [];
  started = 0;
  target = n;
  const ready = new Promise((resolve) => {
    allStarted = resolve;
  });
  global.gc();
  global.gc();
  if (snapshotDir !== undefined) writeHeapSnapshot(join(snapshotDir, `base-${n}.heapsnapshot`));
  const before = process.memoryUsage().heapUsed;
  const results = Array.from({ length: n }, () => tool.execute({ objective: 'bench' }, { agent }));
  await ready;
  // Let every run settle into its awaiting state before measuring.
  await new Promise((resolve) => setImmediate(resolve));
  global.gc();
  global.gc();
  if (snapshotDir !== undefined) writeHeapSnapshot(join(snapshotDir, `suspended-${n}.heapsnapshot`));
  const perRun = (process.memoryUsage().heapUsed - before) / n;
  for (const release of releases) release();
  await Promise.all(results);
  return perRun;
}

const instant = {
  name: 'instant',
  capabilities: { structuredOutput: true, inheritsParentContext: false },
  async start(request) {
    return { id: `${request.runId}-${request.round}`, report: Promise.resolve(cont) };
  },
};
const instantTool = toolWith(instant, 4);
const instantToolBefore = before && toolWith(instant, 4, before);

// Each measure runs 3,000 runs in all (30 batches of 100, 3 of 1,000, 1 of 3,000), so every count does the same work
// and a small count is not one short, noisy batch.
async function perRunMs(n, tool = instantTool) {
  if (onlyCount !== undefined && n !== onlyCount) return 0;
  global.gc();
  const batchesOf = Math.max(1, Math.round(3000 / n));
  const start = now();
  for (let b = 0; b < batchesOf; b += 1) {
    await Promise.all(Array.from({ length: n }, () => tool.execute({ objective: 'bench' }, { agent })));
  }
  const ms = (now() - start) / (n * batchesOf);
  return ms;
}

if (onlyCount === undefined) await suspendedHeap(100); // warm-up: compile every path before the baseline
if (onlyCount === undefined && before) await suspendedHeap(100, heldToolBefore);
const heaps = [];
const heapsBefore = [];
if (onlyCount === undefined)
  for (let i = 0; i < 3; i += 1) {
    heaps.push(await suspendedHeap(suspended));
    if (before) heapsBefore.push(await suspendedHeap(suspended, heldToolBefore));
  }
const kb = median(heaps) / 1024;
log(`heap per suspended run (${suspended} runs): ${heaps.map((h) => (h / 1024).toFixed(1)).join(', ')} KB`);
if (before) log(`  the --before build: ${heapsBefore.map((h) => (h / 1024).toFixed(1)).join(', ')} KB`);

// What one provided machine costs: each run paid it until the engine shared one machine among its runs.
function providedMachineHeap(n) {
  const keep = [];
  global.gc();
  global.gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i += 1)
    keep.push(ralphMachine.provide({ actors: createChildRoundActors(held, 5000) }));
  global.gc();
  global.gc();
  const perMachine = (process.memoryUsage().heapUsed - before) / n;
  keep.length = 0;
  return perMachine;
}
providedMachineHeap(100);
const machineKb =
  onlyCount !== undefined ? 0 : median([0, 1, 2].map(() => providedMachineHeap(suspended))) / 1024;

const counts = [100, 1000, 3000];
await perRunMs(1000); // warm-up
if (before) await perRunMs(1000, instantToolBefore);
const times = Object.fromEntries(counts.map((n) => [n, []]));
const timesBefore = Object.fromEntries(counts.map((n) => [n, []]));
for (let b = 0; b < batches; b += 1)
  for (const n of counts) {
    times[n].push(await perRunMs(n));
    if (before) timesBefore[n].push(await perRunMs(n, instantToolBefore));
  }
/** The median ms per run at each count, and the 1,000 and 3,000 ratios to 100, said on one line. */
function perRunLine(label, samples) {
  const ms = Object.fromEntries(counts.map((n) => [n, median(samples[n])]));
  const ratios = `1,000/100 ${(ms[1000] / ms[100]).toFixed(2)}×, 3,000/100 ${(ms[3000] / ms[100]).toFixed(2)}×`;
  log(`${label}: ${counts.map((n) => `${n}: ${ms[n].toFixed(3)}`).join(', ')} (${ratios})`);
  return ms;
}
const clockName = process.argv.includes('--cpu') ? 'CPU ms' : 'ms';
const ms = perRunLine(`${clockName} per run of 4 instant rounds`, times);
if (before) perRunLine('  the --before build', timesBefore);
const r1000 = ms[1000] / ms[100];
const r3000 = ms[3000] / ms[100];
finish([
  row(
    `At scale: heap per suspended run (${suspended} concurrent)`,
    +kb.toFixed(1),
    'KB',
    '≤ 30 KB',
    kb <= 30,
    'heapUsed after gc − baseline',
  ),
  row(
    'At scale: one provided machine (each run paid it before the engine shared one)',
    +machineKb.toFixed(1),
    'KB',
    '(part)',
    null,
    'ralphMachine.provide({ actors }) alone, for comparison',
  ),
  row(
    'At scale: time per run, 100 concurrent (4 instant rounds)',
    +ms[100].toFixed(3),
    'ms/run',
    '(base)',
    null,
  ),
  row(
    'At scale: time per run, 1,000 / 100 concurrent',
    +r1000.toFixed(2),
    '×',
    '≤ 1.25× (flat)',
    r1000 <= 1.25,
    `${ms[1000].toFixed(3)} ms/run`,
  ),
  row(
    'At scale: time per run, 3,000 / 100 concurrent',
    +r3000.toFixed(2),
    '×',
    '≤ 1.25× (flat)',
    r3000 <= 1.25,
    `${ms[3000].toFixed(3)} ms/run`,
  ),
]);
