// Target 2, start-up of `ralph run`: how long from launching the CLI until its first child agent is running (target
// 140 ms on the development machine). Each launch runs `node dist/hosts/cli/main.js run … --max-rounds 1` with a
// probe agent, a /bin/sh script whose first act is to record the wall clock; the time from just before the spawn to
// that stamp is the start-up. Beside it, launched alternately with it, the floor: a bare `node -e` that does nothing
// but spawn the same probe. Run: npm run bench:startup [-- --runs 40]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cli, finish, log, median, numberFlag, percentile, row, stringFlag } from './lib.mjs';

const runs = numberFlag('runs', 25);
// --before DIR: another build's dist/ (e.g. of the base commit); its CLI is launched in the same rounds, alternated
// with this one, so a change to the start-up is measured against its base side by side.
const beforeDir = stringFlag('before');
const TARGET_MS = 140;
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

/** Launches the two commands alternately (warm-ups first), so both see the same machine load. */
async function measureSideBySide(commands, dir) {
  for (let i = 0; i < warmups; i += 1) for (const { argv } of commands) await launch(argv, dir);
  const samples = commands.map(() => []);
  for (let i = 0; i < runs; i += 1) {
    for (const [k, { argv }] of commands.entries()) samples[k].push(await launch(argv, dir));
  }
  return commands.map(({ label }, k) => {
    const line = (key) => {
      const values = samples[k].map((sample) => sample[key]);
      return `median ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, min ${Math.min(...values).toFixed(1)} ms`;
    };
    log(`${label}`);
    log(`  launch → first child running: ${line('toChild')}`);
    log(`  launch → exit:                ${line('toExit')}`);
    return median(samples[k].map((sample) => sample.toChild));
  });
}

const dir = await mkdtemp(join(tmpdir(), 'ralph-bench-startup-'));
try {
  await writeFile(join(dir, 'probe.sh'), probe);
  log(
    `ralph run start-up, ${runs} launches each, alternated, after ${warmups} warm-ups (node ${process.version})\n`,
  );
  const runArgs = ['run', 'Record when you started', '--max-rounds', '1', '--agent-command', 'sh probe.sh'];
  const [floor, ralph, before] = await measureSideBySide(
    [
      {
        label: 'floor: node -e spawning the probe directly',
        argv: [
          process.execPath,
          '-e',
          "require('node:child_process').spawn('sh', ['probe.sh'], { stdio: 'ignore' })",
        ],
      },
      {
        label: 'ralph run --max-rounds 1 --agent-command "sh probe.sh"',
        argv: [process.execPath, cli, ...runArgs],
      },
      ...(beforeDir === undefined
        ? []
        : [
            {
              label: `the --before build (${beforeDir}): ralph run, the same`,
              argv: [process.execPath, resolve(beforeDir, 'hosts/cli/main.js'), ...runArgs],
            },
          ]),
    ],
    dir,
  );
  if (before !== undefined)
    log(`\nthis build / the --before build, launch → first child: ${(ralph / before).toFixed(3)}×`);
  log(`\nralph's own share of the start-up (median minus floor): ${(ralph - floor).toFixed(1)} ms`);
  finish([
    row('Start-up: bare node -e spawning the probe (floor)', +floor.toFixed(1), 'ms', '(floor)', null),
    row(
      'Start-up: ralph run, launch → first child',
      +ralph.toFixed(1),
      'ms',
      `≤ ${TARGET_MS} ms`,
      ralph <= TARGET_MS,
      `median of ${runs}; ralph's share ${(ralph - floor).toFixed(1)} ms`,
    ),
  ]);
} finally {
  await rm(dir, { recursive: true, force: true });
}
