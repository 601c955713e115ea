// Start-up of `ralph run`: how long from launching the CLI until its first child agent is running. The goal is
// 150 ms on the development machine. Each launch runs `node dist/hosts/cli/main.js run … --max-rounds 1` with a
// probe agent, a /bin/sh script whose first act is to record the wall clock; the time from just before the spawn to
// that stamp is the start-up. For scale it also measures the floor: a bare `node -e` that does nothing but spawn the
// same probe. Run: npm run bench:startup [-- --runs 40]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/hosts/cli/main.js', import.meta.url));
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 25 : Number(process.argv[runsFlag + 1]);
const warmups = 3;

const report = JSON.stringify({
  status: 'complete',
  summary: 'probe started',
  evidence: ['the start time is recorded'],
  nextSteps: [],
  blocker: null,
});
// `date +%s%N` is GNU date's nanosecond wall clock; the bench targets the Linux development machine.
const probe = `#!/bin/sh
date +%s%N > started-at
cat > /dev/null
printf '%s' '${report}' > "$RALPH_REPORT_FILE"
`;

const now = () => performance.timeOrigin + performance.now();

/** Launches `argv`, resolves with ms from launch to the probe's stamp and to the process's exit. */
async function launch(argv, dir) {
  await rm(join(dir, 'started-at'), { force: true });
  const launchedAt = now();
  const child = spawn(argv[0], argv.slice(1), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const exitedAt = now();
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${stderr}`);
  const stamp = Number((await readFile(join(dir, 'started-at'), 'utf8')).trim()) / 1e6;
  return { toChild: stamp - launchedAt, toExit: exitedAt - launchedAt };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function measure(label, argv, dir) {
  for (let i = 0; i < warmups; i += 1) await launch(argv, dir);
  const samples = [];
  for (let i = 0; i < runs; i += 1) samples.push(await launch(argv, dir));
  const row = (key) => {
    const values = samples.map((sample) => sample[key]);
    return `median ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, min ${Math.min(...values).toFixed(1)} ms`;
  };
  console.log(`${label}`);
  console.log(`  launch → first child running: ${row('toChild')}`);
  console.log(`  launch → exit:                ${row('toExit')}`);
  return percentile(
    samples.map((sample) => sample.toChild),
    50,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'ralph-bench-startup-'));
try {
  await writeFile(join(dir, 'probe.sh'), probe);
  console.log(
    `ralph run start-up, ${runs} launches each after ${warmups} warm-ups (node ${process.version})\n`,
  );
  const floor = await measure(
    'floor: node -e spawning the probe directly',
    [process.execPath, '-e', "require('node:child_process').spawn('sh', ['probe.sh'], { stdio: 'ignore' })"],
    dir,
  );
  const ralph = await measure(
    'ralph run --max-rounds 1 --agent-command "sh probe.sh"',
    [
      process.execPath,
      cli,
      'run',
      'Record when you started',
      '--max-rounds',
      '1',
      '--agent-command',
      'sh probe.sh',
    ],
    dir,
  );
  console.log(`\nralph's own share of the start-up (median minus floor): ${(ralph - floor).toFixed(1)} ms`);
  console.log(
    `goal: first child within 150 ms of launch — ${ralph <= 150 ? 'met' : 'not met'} (median ${ralph.toFixed(1)} ms)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
