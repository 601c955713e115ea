// What a round allocates, collected garbage included: V8's sampling heap profiler (every `--interval` bytes, objects a
// minor or major GC collected kept in the profile) over the tool's rounds with an instant in-process provider, as
// bench/in-process.mjs runs them; bytes a round in all, and the functions that allocated most. Unlike CPU time it
// does not move with the machine's load. Run: npm run build && node bench/round-allocations.mjs [--runs 20
// --rounds 256 --top 15 --interval 256] [--before DIR] (DIR: another build's dist/, measured after this one).
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bareProvider, log, numberFlag, stringFlag } from './lib.mjs';

const runs = numberFlag('runs', 20);
const rounds = numberFlag('rounds', 256);
const top = numberFlag('top', 15);
const interval = numberFlag('interval', 256);
const agent = { id: 'bench', cwd: process.cwd() };
const provider = bareProvider;

/** Bytes a round of one build's tool allocates, and by which functions (self, bytes a round). */
async function allocations(dir) {
  const build = await import(pathToFileURL(resolve(dir, 'index.js')).href);
  const providers = build.createProviderRegistry();
  providers.register(provider);
  const tool = build.createRalphTool({ subagentProvider: 'bench', maxRounds: rounds }, { providers });
  for (let i = 0; i < 5; i += 1) await tool.execute({ objective: 'bench' }, { agent });
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < runs; i += 1) await tool.execute({ objective: 'bench' }, { agent });
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const self = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const perRound = (bytes) => bytes / (runs * rounds);
  return { total: perRound(total), top: [...self].sort((a, b) => b[1] - a[1]).slice(0, top) };
}

const builds = [
  ['this build', 'dist'],
  ...(stringFlag('before') ? [['--before', stringFlag('before')]] : []),
];
for (const [label, dir] of builds) {
  const { total, top: functions } = await allocations(dir);
  log(`${label}: ${(total / 1024).toFixed(1)} KB allocated a round (${runs} runs × ${rounds} rounds)`);
  for (const [key, bytes] of functions)
    log(`  ${(bytes / (runs * rounds)).toFixed(0).padStart(6)} B  ${key}`);
}
