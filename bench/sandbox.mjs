// Issue 32, "a round in the sandbox costs at most 30 ms more than without it": the same runs through the library
// (createRalphTool, in this one process, so what is timed is the rounds and never a node start-up of ralph), each
// without the sandbox, with `sandbox: { network: 'keep' }` (`--sandbox`) and with `{ network: 'none' }`
// (`--sandbox --sandbox-network none`), interleaved: every pair runs the three, in an order that rotates from pair to
// pair, so all three see the same machine load. Two workloads:
// - example: the example agent (exampleAgentProvider, a node child per round that runs its task's check) to the end
//   of a fresh copy of examples/demo-workspace (3 rounds; the copy is made before the clock starts);
// - trivial: a /bin/sh command agent that drains its prompt and writes its report at once (commandProvider),
//   `--rounds` rounds a run.
// Per pair: (sandboxed − off) / rounds, the cost per round, and sandboxed / off; the medians and p90s over the pairs.
// The availability probe (one empty bwrap, once per process: once per `ralph run`) is paid by the warm-up run and
// reported apart. Then, unless --json, the pieces a sandboxed start is made of, each timed alone in a loop
// (`--pieces` forces them in --json mode too).
// Run: npm run bench:sandbox [-- --pairs 15 --rounds 10 --pieces-runs 40 --only-pieces]
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  exampleAgentProvider,
} from '../dist/index.js';
import { finish, jsonMode, log, median, now, numberFlag, percentile, row, shAgentSource } from './lib.mjs';

const pairs = numberFlag('pairs', 15);
const trivialRounds = numberFlag('rounds', 10);
const piecesRuns = numberFlag('pieces-runs', 40);
const showPieces = !jsonMode || process.argv.includes('--pieces');
const TARGET_MS = 30;
const demo = fileURLToPath(new URL('../examples/demo-workspace', import.meta.url));
const bwrap = process.env.RALPH_BWRAP || 'bwrap';

/** The variants of each pair; `hide` is what `ralph run --sandbox` hides besides a recording (ralph's ~/.ralph). */
const hide = [join(homedir(), '.ralph')];
const VARIANTS = [
  { name: 'off', sandbox: undefined },
  { name: 'keep', sandbox: { network: 'keep', hide } },
  { name: 'none', sandbox: { network: 'none', hide } },
];

const toolFor = (provider, name, maxRounds, sandbox) => {
  const providers = createProviderRegistry();
  providers.register(provider);
  return createRalphTool(
    { subagentProvider: name, maxRounds, ...(sandbox === undefined ? {} : { sandbox }) },
    { providers },
  );
};

/** The two workloads: how to make a fresh workspace for one run, and the tool of each variant. */
async function workloads(root) {
  // The trivial agent's workspace holds its script (a sandboxed round sees /tmp only where it is bound) and is kept.
  const agentDir = join(root, 'trivial');
  await mkdir(agentDir);
  await writeFile(join(agentDir, 'agent.sh'), shAgentSource);
  return [
    {
      name: 'example',
      label: 'example agent, demo workspace to complete (3 rounds)',
      objective: 'Tick every box in TASKS.md',
      rounds: 3,
      tools: VARIANTS.map((v) => toolFor(exampleAgentProvider(), 'example', 5, v.sandbox)),
      workspace: async (n) => {
        const dir = join(root, `demo-${n}`);
        await cp(demo, dir, { recursive: true });
        return dir;
      },
    },
    {
      name: 'trivial',
      label: `trivial sh agent that reports at once (${trivialRounds} rounds)`,
      objective: 'Write the report',
      rounds: trivialRounds,
      tools: VARIANTS.map((v) =>
        toolFor(commandProvider({ command: ['sh', 'agent.sh'] }), 'command', trivialRounds, v.sandbox),
      ),
      workspace: async () => agentDir,
      keep: true,
    },
  ];
}

/**
 * The CPU time (user + system, ms) this process and its waited-for children used so far: the children's from
 * /proc/self/stat (cutime, cstime, in ticks of 10 ms; bwrap, the sandbox's PID 1 and the agent are each waited for by
 * their parent, so they all count). Unlike the wall time it hardly moves with what else the 2 shared cores run.
 */
function treeCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const childTicks = Number(fields[13]) + Number(fields[14]);
  const { user, system } = process.cpuUsage();
  return childTicks * 10 + (user + system) / 1000;
}

let runNumber = 0;
/** One run of a workload with one variant's tool, in a fresh workspace: its wall and CPU time in ms. */
async function timeRun(workload, tool) {
  runNumber += 1;
  const cwd = await workload.workspace(runNumber);
  const cpuBefore = treeCpuMs();
  const started = now();
  const envelope = await tool.execute({ objective: workload.objective }, { agent: { id: 'bench', cwd } });
  const ms = now() - started;
  const cpu = treeCpuMs() - cpuBefore;
  const { status, rounds } = envelope.result;
  if (status !== 'complete' || rounds !== workload.rounds)
    throw new Error(
      `${workload.name}: ended ${status} after ${rounds} rounds: ${JSON.stringify(envelope.result)}`,
    );
  if (workload.keep !== true) await rm(cwd, { recursive: true, force: true });
  return { ms, cpu };
}

const stats = (values) => ({ median: median(values), p90: percentile(values, 90) });
const fmt = (n, digits = 1) => n.toFixed(digits);

/** The pairs of one workload: per round, each variant's time, and each sandboxed variant's cost over `off`. */
async function measure(workload) {
  const perRound = VARIANTS.map(() => []);
  const cpuPerRound = VARIANTS.map(() => []);
  for (let pair = 0; pair < pairs; pair += 1) {
    const ms = [];
    const cpu = [];
    for (let k = 0; k < VARIANTS.length; k += 1) {
      const v = (pair + k) % VARIANTS.length;
      const run = await timeRun(workload, workload.tools[v]);
      ms[v] = run.ms / workload.rounds;
      cpu[v] = run.cpu / workload.rounds;
    }
    for (const [v, m] of ms.entries()) perRound[v].push(m);
    for (const [v, c] of cpu.entries()) cpuPerRound[v].push(c);
    log(
      `  pair ${pair + 1}: ${VARIANTS.map((v, i) => `${v.name} ${fmt(ms[i])}`).join(', ')} ms/round` +
        ` (keep +${fmt(ms[1] - ms[0])}, none +${fmt(ms[2] - ms[0])}; cpu ${cpu.map((c) => fmt(c)).join(', ')})`,
    );
  }
  const [off, ...boxed] = perRound;
  const [offCpu, ...boxedCpu] = cpuPerRound;
  return {
    off: stats(off),
    offCpu: stats(offCpu),
    boxed: boxed.map((values, i) => ({
      name: VARIANTS[i + 1].name,
      round: stats(values),
      added: stats(values.map((m, p) => m - off[p])),
      ratio: stats(values.map((m, p) => m / off[p])),
      cpuAdded: stats(boxedCpu[i].map((c, p) => c - offCpu[p])),
    })),
  };
}

/** Runs argv to its exit (status 0 expected); resolves with the wall time in ms. */
function timeSpawn(argv) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(now() - started) : reject(new Error(`${argv.join(' ')}: ${code} ${stderr}`)),
    );
  });
}

/**
 * The pieces of a sandboxed start, each a command line timed alone, interleaved, `piecesRuns` times: from a bare
 * /bin/sh to the whole of what ralph starts for a round (its mounts for a workspace under /tmp, the round's folder,
 * ~/.ralph hidden, and its PID 1). Each line adds one thing to the line before it, so the differences are the
 * pieces' costs.
 */
async function pieces(root) {
  const sh = ['/bin/sh', '-c', 'exit 0'];
  const pid1 = [
    '/bin/sh',
    '-c',
    'trap : TERM INT HUP; exec 3<&0; "$@" <&3 3<&- & p=$!; exec 3<&-; while :; do wait "$p"; s=$?; kill -0 "$p" 2>/dev/null || exit "$s"; done',
    'ralph-sandbox',
    ...sh,
  ];
  const workspace = join(root, 'pieces-workspace');
  const roundDir = join(root, 'pieces-round');
  await cp(demo, workspace, { recursive: true });
  await mkdir(roundDir);
  await writeFile(join(roundDir, 'owner.json'), '{}');
  const home = homedir();
  const base = ['--ro-bind', '/', '/'];
  const fs = ['--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const roundMounts = [
    '--tmpfs',
    home,
    '--bind',
    workspace,
    workspace,
    '--bind',
    roundDir,
    roundDir,
    '--ro-bind',
    join(roundDir, 'owner.json'),
    join(roundDir, 'owner.json'),
  ];
  const shared = ['--unshare-all', '--share-net', '--as-pid-1'];
  const probe = [bwrap, ...shared, ...base, ...fs];
  const round = [...probe, ...roundMounts];
  const lines = [
    { label: 'bare /bin/sh -c "exit 0" (floor)', argv: sh },
    { label: 'bwrap --ro-bind / / (user + mount namespaces)', argv: [bwrap, ...base, '--', ...sh] },
    {
      label: '+ --unshare-all --share-net (pid, ipc, uts, cgroup)',
      argv: [bwrap, ...shared.slice(0, 2), ...base, '--', ...sh],
    },
    { label: '+ --as-pid-1', argv: [bwrap, ...shared, ...base, '--', ...sh] },
    {
      label: '+ --dev /dev --proc /proc --tmpfs /tmp (the probe, with the network)',
      argv: [...probe, '--', ...sh],
    },
    {
      label: "+ a round's mounts (home tmpfs, workspace, round folder, owner record)",
      argv: [...round, '--', ...sh],
    },
    {
      label: "+ ralph's PID 1 (/bin/sh running the command): a --sandbox round's start",
      argv: [...round, '--', ...pid1],
    },
    {
      label: 'the same without --share-net (own network namespace): --sandbox-network none',
      argv: round.filter((arg) => arg !== '--share-net').concat('--', ...pid1),
    },
    {
      label: 'bwrap --unshare-net --ro-bind / / (a network namespace alone)',
      argv: [bwrap, '--unshare-net', ...base, '--', ...sh],
    },
    {
      // For comparison only: bubblewrap's own reaper as PID 1 (no --as-pid-1) saves ralph's sh, but it goes on
      // reaping after the command exits, so a setsid daemon outlives the round (ralph's PID 1 exits, killing it).
      label: "a round's start with bubblewrap's own PID 1 (keeps a setsid daemon alive: not usable)",
      argv: round.filter((arg) => arg !== '--as-pid-1').concat('--', ...sh),
    },
  ];
  for (const line of lines) await timeSpawn(line.argv);
  const samples = lines.map(() => []);
  const cpu = lines.map(() => 0);
  for (let i = 0; i < piecesRuns; i += 1) {
    for (const [k, line] of lines.entries()) {
      const before = treeCpuMs();
      samples[k].push(await timeSpawn(line.argv));
      cpu[k] += treeCpuMs() - before;
    }
  }
  return lines.map((line, k) => ({ label: line.label, ...stats(samples[k]), cpu: cpu[k] / piecesRuns }));
}

/** The probe ralph runs once per process before a sandboxed run (sandbox-check.ts), timed alone. */
function timeProbe() {
  const argv = ['--unshare-all', '--as-pid-1', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  return new Promise((resolve, reject) => {
    const started = now();
    execFile(bwrap, [...argv, '--', '/bin/sh', '-c', 'exit 0'], (error) =>
      error === null ? resolve(now() - started) : reject(error),
    );
  });
}

const unavailable = await timeProbe().then(
  () => null,
  (error) => (error.code === 'ENOENT' ? `${bwrap} not found` : `${bwrap} cannot create its namespaces`),
);
if (unavailable !== null) {
  // `npm run bench` goes on where there is no bubblewrap: the figures are skipped, and the table says why.
  finish([
    row(
      'Sandbox: what --sandbox adds to a round',
      0,
      'ms/round',
      `≤ ${TARGET_MS} ms`,
      null,
      `skipped: ${unavailable}`,
    ),
  ]);
  process.exit(0);
}
const root = await mkdtemp(join(tmpdir(), 'ralph-bench-sandbox-'));
try {
  const probeMs = [];
  for (let i = 0; i < 9; i += 1) probeMs.push(await timeProbe());
  // --only-pieces: the profile of a sandboxed start alone, without the runs.
  const only = process.argv.includes('--only-pieces');
  if (!only)
    log(
      `sandbox cost per round: ${pairs} interleaved pairs (off, --sandbox, --sandbox-network none) per workload`,
    );
  log(
    `the probe (once per process, before a sandboxed run's first round): median ${fmt(median(probeMs))} ms\n`,
  );
  const results = [];
  for (const workload of only ? [] : await workloads(root)) {
    // Warm-up: one run of each variant (the first sandboxed one pays the probe), untimed.
    for (const tool of workload.tools) await timeRun(workload, tool);
    log(`${workload.label}:`);
    const result = await measure(workload);
    results.push({ workload, result });
    log(
      `  off: median ${fmt(result.off.median)} ms/round, p90 ${fmt(result.off.p90)}; ` +
        `CPU ${fmt(result.offCpu.median)} ms/round`,
    );
    for (const b of result.boxed)
      log(
        `  ${b.name}: median ${fmt(b.round.median)} ms/round; adds median ${fmt(b.added.median)} ms, p90 ` +
          `${fmt(b.added.p90)} ms; ratio median ${fmt(b.ratio.median, 3)}×, p90 ${fmt(b.ratio.p90, 3)}×; ` +
          `CPU added median ${fmt(b.cpuAdded.median)} ms/round, p90 ${fmt(b.cpuAdded.p90)}`,
      );
    log('');
  }
  if (showPieces) {
    log(
      `the pieces of a sandboxed start, ${piecesRuns} runs each, interleaved (ms; CPU: the mean per run, every process):`,
    );
    for (const p of await pieces(root))
      log(
        `  ${p.label.padEnd(84)} median ${fmt(p.median, 2).padStart(6)}  p90 ${fmt(p.p90, 2).padStart(6)}  ` +
          `CPU ${fmt(p.cpu, 2).padStart(6)}`,
      );
  }
  const rows = [];
  for (const { workload, result } of results) {
    rows.push(
      row(
        `Sandbox: ${workload.name} agent, a round without it`,
        +fmt(result.off.median),
        'ms/round',
        '(base)',
        null,
      ),
    );
    for (const b of result.boxed) {
      const flag = b.name === 'keep' ? '--sandbox' : '--sandbox-network none';
      rows.push(
        row(
          `Sandbox: ${workload.name} agent, what ${flag} adds to a round`,
          +fmt(b.added.median),
          'ms/round',
          `≤ ${TARGET_MS} ms`,
          b.added.median <= TARGET_MS,
          `median of ${pairs} pairs; p90 ${fmt(b.added.p90)} ms; ${fmt(b.ratio.median, 3)}× (p90 ${fmt(b.ratio.p90, 3)}×); ` +
            `CPU +${fmt(b.cpuAdded.median)} ms`,
        ),
      );
    }
  }
  rows.push(
    row('Sandbox: the probe, once per process', +fmt(median(probeMs)), 'ms', '(once)', null, 'median of 9'),
  );
  finish(rows);
} finally {
  await rm(root, { recursive: true, force: true });
}
