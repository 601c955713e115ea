// ralph against the public Ralph loops, side by side: each drives the same fake `claude` (fake-claude.sh, which
// answers at once) through 20 rounds, and the wall time of the whole loop process is measured, launch to exit. The
// tools take turns (interleaved, the order rotating every pass) so a busy moment of the machine falls on all of them
// alike; after one warm-up pass each, the medians of 8 passes are compared. Every run is checked: exactly 20 round
// calls in the fake's log, exit code 0, and the tool's own "all done" (ralph's complete after 20 rounds, every PRD
// task ticked); a tool that fails the check is "not measurable", with the reason. The peers are installed into
// .bench-cache/peers/ on first use (install-peers.mjs). Run: npm run bench:peers [-- --runs 8] [-- --json] (--json adds
// one JSON line with the ratio, for the summary table of npm run bench).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { installPeers, PEER_VERSIONS } from './install-peers.mjs';

const ROUNDS = 20;
const TARGET = 0.8;
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 8 : Number(process.argv[runsFlag + 1]);

const here = fileURLToPath(new URL('.', import.meta.url));
const fake = join(here, 'fake-claude.sh');
const fixtures = join(here, 'fixtures');
const ralphCli = fileURLToPath(new URL('../../dist/hosts/cli/main.js', import.meta.url));
const ralphVersion = JSON.parse(
  await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

const scratch = await mkdtemp(join(tmpdir(), 'ralph-bench-peers-'));
// The fake first on PATH as `claude`: how the peers find it (none of them takes a path to the executable).
const fakeBin = join(scratch, 'bin');
await mkdir(fakeBin);
await symlink(fake, join(fakeBin, 'claude'));
// A home of their own, so no user config steers a peer and no peer writes into the user's home.
const home = join(scratch, 'home');
await mkdir(home);

let peers;
let installError;
try {
  peers = installPeers();
} catch (error) {
  installError = `install failed: ${error.message.split('\n')[0]}`;
}

const ticked = (text) => (text.match(/^- \[x\]/gm) ?? []).length;
const passed = (text) => JSON.parse(text).userStories.filter((story) => story.passes === true).length;

/**
 * The tools. `argv` runs in a fresh workspace holding `fixture`; `done` checks the tool's own end state.
 * `unavailable` says why a tool cannot run here at all.
 */
const tools = [
  {
    name: `ralph ${ralphVersion}`,
    driven: `ralph run --agent claude --claude-path FAKE --max-rounds ${ROUNDS}; the fake reports continue, then complete at round ${ROUNDS}`,
    argv: [
      'node',
      ralphCli,
      'run',
      'Tick every task in PRD.md',
      '--agent',
      'claude',
      '--claude-path',
      fake,
      '--max-rounds',
      String(ROUNDS),
    ],
    fixture: 'PRD.md',
    done: async ({ stdout }) =>
      stdout.includes(`after ${ROUNDS} rounds`) || 'no "complete after 20 rounds" result',
  },
  {
    name: `ralphy-cli ${PEER_VERSIONS['ralphy-cli']}`,
    driven:
      'its compiled binary: ralphy --prd PRD.md --fast --no-commit --no-browser; it ticks a task after each successful call',
    argv: peers && [peers.ralphyBinary, '--prd', 'PRD.md', '--fast', '--no-commit', '--no-browser'],
    fixture: 'PRD.md',
    done: async ({ dir }) => {
      const n = ticked(await readFile(join(dir, 'PRD.md'), 'utf8'));
      return n === ROUNDS || `${n} of ${ROUNDS} PRD tasks ticked`;
    },
  },
  {
    name: `ralphy-cli ${PEER_VERSIONS['ralphy-cli']} (npm bin)`,
    driven: 'the same through its npm bin, bin.js, a node wrapper that spawns the binary',
    argv: peers && ['node', peers.ralphyWrapper, '--prd', 'PRD.md', '--fast', '--no-commit', '--no-browser'],
    fixture: 'PRD.md',
    done: async ({ dir }) => {
      const n = ticked(await readFile(join(dir, 'PRD.md'), 'utf8'));
      return n === ROUNDS || `${n} of ${ROUNDS} PRD tasks ticked`;
    },
  },
  {
    name: `ralph-tui ${PEER_VERSIONS['ralph-tui']}`,
    driven: `bun: ralph-tui run --prd prd.json --agent claude --headless --no-setup --no-notify --delay 0 --iterations ${ROUNDS}; <promise>COMPLETE</promise> every round marks the current story done`,
    argv: peers?.bunBin && [
      'bun',
      peers.ralphTui,
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'claude',
      '--headless',
      '--no-setup',
      '--no-notify',
      '--delay',
      '0',
      '--iterations',
      String(ROUNDS),
    ],
    env: { FAKE_CLAUDE_PROMISE: 'every' },
    fixture: 'prd.json',
    unavailable: peers && !peers.bunBin ? 'Bun publishes no build for this platform' : undefined,
    done: async ({ dir }) => {
      const n = passed(await readFile(join(dir, 'prd.json'), 'utf8'));
      return n === ROUNDS || `${n} of ${ROUNDS} stories passed`;
    },
  },
  {
    name: `ralph-starter ${PEER_VERSIONS['ralph-starter']}`,
    driven: `ralph-starter run TASK --prd PRD.md --agent claude-code --max-iterations ${ROUNDS} --headless --no-auto-skills --output-dir .; <promise>COMPLETE</promise> at round ${ROUNDS} ends it`,
    argv: peers && [
      'node',
      peers.ralphStarter,
      'run',
      'Tick every task in PRD.md',
      '--prd',
      'PRD.md',
      '--agent',
      'claude-code',
      '--max-iterations',
      String(ROUNDS),
      '--headless',
      '--no-auto-skills',
      '--output-dir',
      '.',
    ],
    fixture: 'PRD.md',
    done: async () => true,
  },
  {
    // What any loop hosted by Node pays before doing anything of its own: Node's start, and a spawn per round from a
    // process of Node's size (fork copies its page tables), waiting for each child to close its pipes.
    name: 'bare node loop (Node floor)',
    driven: `node -e: spawns the fake ${ROUNDS} times one after another with ralph's three pipes, and waits for each`,
    argv: [
      'node',
      '-e',
      `const { spawn } = require('node:child_process');
      (async () => {
        for (let i = 0; i < ${ROUNDS}; i += 1)
          await new Promise((resolve) => {
            const child = spawn('claude', ['-p', '--output-format', 'json'], { stdio: 'pipe', detached: true });
            child.stdout.resume();
            child.stderr.resume();
            child.stdin.on('error', () => {}); // the fake does not read its prompt: EPIPE, as ralph also ignores
            child.stdin.end('prompt');
            child.on('close', resolve);
          });
      })();`,
    ],
    fixture: 'PRD.md',
    done: async () => true,
  },
  {
    name: 'bare shell loop (floor)',
    driven: `sh: the fake called ${ROUNDS} times in a for loop, as ralph calls it: the cost of the fake alone`,
    argv: [
      'sh',
      '-c',
      `for i in $(seq ${ROUNDS}); do claude -p --output-format json </dev/null >/dev/null; done`,
    ],
    fixture: 'PRD.md',
    done: async () => true,
  },
];

/** Runs `tool` once in a fresh git workspace; resolves with its wall time in seconds and the fake's call counts. */
async function runOnce(tool, index) {
  const dir = await mkdtemp(join(scratch, 'ws-'));
  await copyFile(join(fixtures, tool.fixture), join(dir, tool.fixture));
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '.');
  git('add', '.');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'fixture');
  const log = join(scratch, `calls-${index}.log`);
  await rm(log, { force: true });
  const { RALPH_DEPTH: _depth, ...inherited } = process.env;
  const env = {
    ...inherited,
    PATH: [fakeBin, peers?.bunBin, process.env.PATH].filter(Boolean).join(':'),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    FAKE_CLAUDE_LOG: log,
    FAKE_CLAUDE_ROUNDS: String(ROUNDS),
    ...tool.env,
  };
  const started = performance.now();
  const child = spawn(tool.argv[0], tool.argv.slice(1), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise((resolve) => {
    child.on('error', (error) => {
      stderr += error.message;
      resolve(-1);
    });
    child.on('close', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  const lines = existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : [];
  const rounds = lines.filter((line) => line.startsWith('round')).length;
  const probes = lines.filter((line) => line.startsWith('version')).length;
  const done = await tool.done({ dir, stdout });
  await rm(dir, { recursive: true, force: true });
  let failure;
  if (code !== 0)
    failure = `exit code ${code}: ${(stderr || stdout).trim().split('\n').slice(-2).join(' / ')}`;
  else if (rounds !== ROUNDS) failure = `${rounds} calls of the fake instead of ${ROUNDS}`;
  else if (done !== true) failure = done;
  return { seconds, rounds, probes, failure };
}

for (const tool of tools) {
  tool.times = [];
  tool.calls = { rounds: 0, probes: 0 };
  if (!tool.argv) tool.failure = tool.unavailable ?? installError ?? 'cannot run here';
}
const live = () => tools.filter((tool) => !tool.failure);
// Pass 0 is the warm-up (page cache, the fake on disk, Bun's and Node's first start); it is checked, not timed.
for (let pass = 0; pass <= runs; pass++) {
  const order = live();
  const shift = pass % Math.max(order.length, 1);
  for (const tool of [...order.slice(shift), ...order.slice(0, shift)]) {
    const result = await runOnce(tool, tools.indexOf(tool));
    if (result.failure) {
      tool.failure = result.failure;
      continue;
    }
    if (pass === 0) continue;
    tool.times.push(result.seconds);
    tool.calls.rounds += result.rounds;
    tool.calls.probes += result.probes;
  }
}
await rm(scratch, { recursive: true, force: true });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
for (const tool of tools) if (!tool.failure) tool.median = median(tool.times);
const ralph = tools[0];
const ralphy = tools[1];

const load = loadavg()
  .map((n) => n.toFixed(1))
  .join(' ');
console.log(
  `Peers: ${ROUNDS} rounds of the same fake claude, medians of ${runs} interleaved runs (${cpus().length} cores, load ${load}, node ${process.version})`,
);
console.log('');
// Node 20 reads and parses every certificate of NODE_EXTRA_CA_CERTS at each start, before any script runs (a
// 144-certificate bundle cost ≈ 38 ms of CPU a start on the development machine, more than ralph's own start-up): ralph
// and the Node loops pay it, Bun does not. Said, so that a table taken with it set is not read as the tools' own.
const extraCerts = process.env.NODE_EXTRA_CA_CERTS;
if (extraCerts) {
  const count = await readFile(extraCerts, 'utf8')
    .then((text) => `${(text.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length} certificates`)
    .catch(() => 'unreadable');
  console.log(
    `NODE_EXTRA_CA_CERTS is set (${extraCerts}, ${count}): every Node start parses it; unset it to compare the tools alone`,
  );
  console.log('');
}
const header = ['tool', 'median s', 'min s', 'max s', 'ms / round', 'vs ralphy', 'fake calls / run'];
const rows = tools.map((tool) =>
  tool.failure
    ? [tool.name, `not measurable: ${tool.failure}`]
    : [
        tool.name,
        tool.median.toFixed(3),
        Math.min(...tool.times).toFixed(3),
        Math.max(...tool.times).toFixed(3),
        ((tool.median * 1000) / ROUNDS).toFixed(1),
        ralphy.median ? `${(tool.median / ralphy.median).toFixed(2)}x` : '-',
        `${tool.calls.rounds / tool.times.length} rounds${tool.calls.probes ? ` + ${tool.calls.probes / tool.times.length} --version` : ''}`,
      ],
);
// A "not measurable" row is the name and the reason, which runs across the figure columns.
const measured = [header, ...rows.filter((row) => row.length === header.length)];
const widths = header.map((_, i) =>
  Math.max(
    ...measured.map((row) => row[i].length),
    i === 0 ? Math.max(...rows.map((row) => row[0].length)) : 0,
  ),
);
const line = (row) =>
  row.length < header.length
    ? `${row[0].padEnd(widths[0])}  ${row[1]}`
    : row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log('');
for (const tool of tools) console.log(`${tool.name}: ${tool.driven}`);
console.log('');
if (ralph.median && ralphy.median) {
  const ratio = ralph.median / ralphy.median;
  console.log(
    `ralph / ralphy-cli (binary): ${ratio.toFixed(2)}x, target <= ${TARGET}x: ${ratio <= TARGET ? 'pass' : 'miss'}`,
  );
  const nodeFloor = tools.find((tool) => tool.name.startsWith('bare node loop'));
  if (nodeFloor?.median)
    console.log(
      `bare node loop / ralphy-cli (binary): ${(nodeFloor.median / ralphy.median).toFixed(2)}x (the least any Node host can take); ralph / bare node loop: ${(ralph.median / nodeFloor.median).toFixed(2)}x`,
    );
  if (process.argv.includes('--json'))
    console.log(JSON.stringify({ figure: 'peers', ratio, target: TARGET, pass: ratio <= TARGET }));
} else {
  console.log(`ralph / ralphy-cli: not measurable (${ralph.failure ?? ralphy.failure})`);
}
