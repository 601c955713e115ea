// Summarizes a profile for BENCHMARKS.md: a `.cpuprofile` (node --cpu-prof) as its top functions by self time, a
// `.heapsnapshot` (v8.writeHeapSnapshot) as its top constructors by self size, or, with --minus BASE.heapsnapshot,
// by what they grew over the base. Run: node bench/profile.mjs FILE [--top 15] [--minus BASE]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { numberFlag } from './lib.mjs';

const file = process.argv[2];
if (file === undefined)
  throw new Error('usage: node bench/profile.mjs FILE.cpuprofile|FILE.heapsnapshot [--top N]');
const top = numberFlag('top', 15);
const data = JSON.parse(readFileSync(file, 'utf8'));

/** Where a call frame comes from, short: the file's name and line. */
function where({ url, lineNumber }) {
  if (url === '') return '';
  const name = url.includes('node_modules/')
    ? url.slice(url.lastIndexOf('node_modules/') + 13)
    : basename(url);
  return `${name}:${lineNumber + 1}`;
}

function cpuSummary(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  let total = 0;
  for (const [i, id] of profile.samples.entries()) {
    const node = byId.get(id);
    const key = `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame)}`.trim();
    const us = deltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
  const busy = total - (self.get('(idle)') ?? 0);
  console.log(`total ${(total / 1000).toFixed(1)} ms sampled, ${(busy / 1000).toFixed(1)} ms not idle`);
  console.log('self ms   share  function');
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${(us / 1000).toFixed(1).padStart(7)}  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`,
    );
  }
}

function heapBySize(snapshot) {
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const bySize = new Map();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]];
    const name =
      type === 'object' || type === 'closure' ? snapshot.strings[snapshot.nodes[i + nameAt]] : `(${type})`;
    const key = type === 'closure' ? `closure ${name}` : name;
    const size = snapshot.nodes[i + sizeAt];
    const entry = bySize.get(key) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count += 1;
    bySize.set(key, entry);
  }
  return bySize;
}

function heapSummary(snapshot, base) {
  const bySize = heapBySize(snapshot);
  if (base !== undefined) {
    for (const [key, { size, count }] of heapBySize(base)) {
      const entry = bySize.get(key) ?? { size: 0, count: 0 };
      bySize.set(key, { size: entry.size - size, count: entry.count - count });
    }
  }
  const total = [...bySize.values()].reduce((sum, { size }) => sum + size, 0);
  console.log(
    `total ${(total / 2 ** 20).toFixed(2)} MiB self size${base === undefined ? '' : ' grown over the base'}`,
  );
  console.log('    KB   count  constructor');
  for (const [key, { size, count }] of [...bySize].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
    console.log(`${(size / 1024).toFixed(0).padStart(6)}  ${String(count).padStart(6)}  ${key}`);
  }
}

const minusAt = process.argv.indexOf('--minus');
const base = minusAt === -1 ? undefined : JSON.parse(readFileSync(process.argv[minusAt + 1], 'utf8'));
if (file.endsWith('.heapsnapshot')) heapSummary(data, base);
else cpuSummary(data);
