// `npm run bench`: runs every benchmark of ralph itself, one after the other, each in its own process (with
// --expose-gc where it measures memory), and prints one table: each figure, its target, pass or miss. Each benchmark
// prints its rows as one JSON line with --json. Run: npm run build && node bench/run-all.mjs
import { execFileSync, spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { now } from './lib.mjs';

const benchmarks = [
  { file: 'startup.mjs', target: 2 },
  { file: 'per-round.mjs', target: 3 },
  { file: 'cli-loop.mjs', target: 4 },
  { file: 'in-process.mjs', target: 5 },
  { file: 'scale.mjs', target: 6, node: ['--expose-gc'] },
  { file: 'cancel.mjs', target: 7 },
  // Issue 32's target: what the sandbox adds to a round (its rows are numbered 32).
  { file: 'sandbox.mjs', target: 32 },
];

function runBenchmark({ file, node = [] }) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, path, '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench/${file} exited ${code}`));
      const last = stdout.trim().split('\n').at(-1);
      resolve(JSON.parse(last).rows);
    });
  });
}

const cores = cpus();
const kernel = execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim();
console.log(
  `machine: ${cores.length} cores (${cores[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `node ${process.version}, ${kernel}`,
);
const rows = [];
const started = now();
for (const benchmark of benchmarks) {
  const t = now();
  process.stderr.write(`bench/${benchmark.file} … `);
  for (const r of await runBenchmark(benchmark)) rows.push({ ...r, issueTarget: benchmark.target });
  process.stderr.write(`${((now() - t) / 1000).toFixed(1)} s\n`);
}

const cells = rows.map((r) => [
  String(r.issueTarget),
  r.figure,
  `${r.value} ${r.unit}`,
  r.target,
  r.pass === null ? '' : r.pass ? 'pass' : 'MISS',
  r.note,
]);
const header = ['#', 'figure', 'measured', 'target', 'verdict', 'how'];
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const line = (c) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
console.log('');
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const c of cells) console.log(line(c));
const judged = rows.filter((r) => r.pass !== null);
const missed = judged.filter((r) => !r.pass).length;
console.log(
  `\n${judged.length - missed} of ${judged.length} targets met, ${missed} missed; ${((now() - started) / 1000).toFixed(0)} s`,
);
