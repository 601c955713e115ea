// Target 3, per round: what ralph adds to each round over the child's own run. In one process, N rounds of the same
// trivial /bin/sh agent (it drains its prompt and writes its report) go through the library (createRalphTool with
// the commandProvider: machine, validation, round folder, process group, report file) and through a bare loop that
// spawns the same agent N times with the same prompt on stdin and waits for each exit. Side by side, interleaved,
// the median over the pairs of (ralph − bare) / N. Run: npm run build && node bench/per-round.mjs [--rounds 40 --pairs 7] [--ralph-only]
// [--before DIR]: DIR is another build's dist/ (e.g. of the base commit, copied to .bench-cache/before/dist); its
// ralph runs in the same pairs, interleaved, so a change is measured against its base side by side.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  renderRoundPrompt,
} from '../dist/index.js';
import { finish, log, median, now, numberFlag, row, shAgentSource, stringFlag, withTempDir } from './lib.mjs';

const beforeDir = stringFlag('before');
const before =
  beforeDir === undefined ? undefined : await import(pathToFileURL(resolve(beforeDir, 'index.js')).href);

const rounds = numberFlag('rounds', 40);
const pairs = numberFlag('pairs', 7);
const objective = 'Write the report';

function spawnAndWait(argv, cwd, env, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`agent exited ${code}`))));
    child.stdin.end(input);
  });
}

await withTempDir('per-round', async (dir) => {
  await writeFile(join(dir, 'agent.sh'), shAgentSource);
  const toolOf = (lib) => {
    const providers = lib.createProviderRegistry();
    providers.register(lib.commandProvider({ command: ['sh', 'agent.sh'] }));
    return lib.createRalphTool({ subagentProvider: 'command', maxRounds: rounds }, { providers });
  };
  const tool = toolOf({ commandProvider, createProviderRegistry, createRalphTool });
  const beforeTool = before === undefined ? undefined : toolOf(before);
  const agent = { id: 'bench', cwd: dir };
  const prompt = renderRoundPrompt({ objective, round: 1, maxRounds: rounds, handoff: null });
  const bareEnv = {
    ...process.env,
    RALPH_ROUND: '1',
    RALPH_MAX_ROUNDS: String(rounds),
    RALPH_REPORT_FILE: join(dir, 'r.json'),
  };

  // The host's own CPU time (user + system, this process only) per round of the last call of each side: unlike the
  // wall time, it does not move with what else the machine runs.
  const cpu = { ralph: 0, bare: 0 };
  const cpuSince = (start) => {
    const { user, system } = process.cpuUsage(start);
    return (user + system) / 1000 / rounds;
  };
  async function viaRalph(via = tool) {
    const start = now();
    const used = process.cpuUsage();
    const envelope = await via.execute({ objective }, { agent });
    if (envelope.result.rounds !== rounds) throw new Error(`ran ${envelope.result.rounds} rounds`);
    cpu.ralph = cpuSince(used);
    return now() - start;
  }
  async function bare() {
    const start = now();
    const used = process.cpuUsage();
    for (let i = 0; i < rounds; i += 1) await spawnAndWait(['sh', 'agent.sh'], dir, bareEnv, prompt);
    cpu.bare = cpuSince(used);
    return now() - start;
  }

  if (process.argv.includes('--ralph-only')) {
    // For node --cpu-prof: only ralph's side, so that the profile shows where its rounds go.
    for (let i = 0; i < pairs; i += 1) log(`ralph ${(await viaRalph()).toFixed(0)} ms`);
    return;
  }
  await bare();
  await viaRalph();
  if (beforeTool !== undefined) await viaRalph(beforeTool);
  const perRound = [];
  const bareRound = [];
  const beforeRound = [];
  const cpuCost = [];
  const beforeCpuCost = [];
  for (let i = 0; i < pairs; i += 1) {
    const b = await bare();
    const r = await viaRalph();
    perRound.push((r - b) / rounds);
    bareRound.push(b / rounds);
    cpuCost.push(cpu.ralph - cpu.bare);
    let was = '';
    if (beforeTool !== undefined) {
      const w = await viaRalph(beforeTool);
      beforeRound.push((w - b) / rounds);
      beforeCpuCost.push(cpu.ralph - cpu.bare);
      was = `, before ${w.toFixed(0)} ms (${((w - b) / rounds).toFixed(2)} ms/round, cpu +${(cpu.ralph - cpu.bare).toFixed(2)})`;
    }
    log(
      `pair ${i + 1}: bare ${b.toFixed(0)} ms, ralph ${r.toFixed(0)} ms, ralph's cost ${((r - b) / rounds).toFixed(2)} ms/round (cpu +${cpuCost.at(-1).toFixed(2)})${was}`,
    );
  }
  const cost = median(perRound);
  log(`host CPU over the bare loop's: ${median(cpuCost).toFixed(2)} ms/round`);
  if (beforeTool !== undefined)
    log(
      `before (${beforeDir}): ${median(beforeRound).toFixed(2)} ms/round, host CPU over the bare loop's ${median(beforeCpuCost).toFixed(2)} ms/round`,
    );
  finish([
    row(
      'Per round: bare spawn+wait of the sh agent',
      +median(bareRound).toFixed(2),
      'ms/round',
      '(floor)',
      null,
    ),
    row(
      "Per round: ralph's cost over the child (library, commandProvider)",
      +cost.toFixed(2),
      'ms/round',
      '≤ 1 ms',
      cost <= 1,
      `median of ${pairs} pairs of ${rounds} rounds`,
    ),
  ]);
});
