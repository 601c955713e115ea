// Target 4, the CLI loop: `ralph run` over 20 rounds of a trivial node agent against the bare shell loop running
// the same agent 20 times (`sh -c 'for i in …; do node agent.cjs < prompt > /dev/null; done'`), launched side by
// side (interleaved, bare first then ralph, per pair), medians of the pairs. Run: npm run build && node bench/cli-loop.mjs [--pairs 7]
// [--before CLI]: CLI is another build's dist/hosts/cli/main.js (e.g. of the base commit, copied to .bench-cache/before);
// it runs in the same pairs, after ralph, so a change is measured against its base side by side. [--cpu]: also the
// CPU time of each whole process tree (less sensitive to a shared machine's load than the wall time).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { renderRoundPrompt } from '../dist/index.js';
import {
  cli,
  finish,
  log,
  median,
  numberFlag,
  row,
  stringFlag,
  timeProcess,
  trivialAgentSource,
  withTempDir,
} from './lib.mjs';

const ROUNDS = 20;
const pairs = numberFlag('pairs', 7);
const objective = 'Count the characters of the prompt';

await withTempDir('cli-loop', async (dir) => {
  await writeFile(join(dir, 'agent.cjs'), trivialAgentSource);
  // The bare loop reads a prompt of the size ralph sends (the round prompt with a handoff).
  const handoff = {
    status: 'continue',
    summary: 'read 1000 chars',
    evidence: [],
    nextSteps: ['run again'],
    blocker: null,
  };
  await writeFile(
    join(dir, 'PROMPT.md'),
    renderRoundPrompt({ objective, round: 2, maxRounds: ROUNDS, handoff }),
  );
  const node = process.execPath;
  const bare = [
    'sh',
    '-c',
    `for i in $(seq ${ROUNDS}); do "${node}" agent.cjs < PROMPT.md > /dev/null; done`,
  ];
  const ralph = [
    node,
    cli,
    'run',
    objective,
    '--max-rounds',
    String(ROUNDS),
    '--agent-command',
    `"${node}" agent.cjs`,
  ];
  // The CPU time (user + system, ms) the whole process tree of `argv` used: a shell runs it and reads its own
  // cutime and cstime from /proc, which count every waited-for descendant. Unlike the wall time, it hardly moves with
  // what else a shared machine runs, so it shows the cost of ralph's own work when the wall times are noise.
  const ticksPerSecond = 100;
  const treeCpu = (argv) =>
    new Promise((resolve, reject) => {
      execFile(
        'sh',
        ['-c', '"$@" > /dev/null; cat /proc/$$/stat', 'sh', ...argv],
        { cwd: dir },
        (error, stdout) => {
          if (error) return reject(error);
          const fields = stdout.slice(stdout.lastIndexOf(')') + 2).split(' ');
          // Fields 16 and 17 (cutime, cstime) are at 13 and 14 once the pid and the name are cut off.
          resolve(((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond);
        },
      );
    });
  const beforeFlag = stringFlag('before');
  const beforeCli = beforeFlag === undefined ? undefined : resolve(beforeFlag);
  const before = beforeCli === undefined ? undefined : [node, beforeCli, ...ralph.slice(2)];
  await timeProcess(bare, { cwd: dir });
  await timeProcess(ralph, { cwd: dir });
  if (before !== undefined) await timeProcess(before, { cwd: dir });
  const bareMs = [];
  const ralphMs = [];
  const ratios = [];
  const beforeRatios = [];
  for (let i = 0; i < pairs; i += 1) {
    const b = await timeProcess(bare, { cwd: dir });
    const r = await timeProcess(ralph, { cwd: dir });
    bareMs.push(b);
    ralphMs.push(r);
    ratios.push(r / b);
    let was = '';
    if (before !== undefined) {
      const w = await timeProcess(before, { cwd: dir });
      beforeRatios.push(w / b);
      was = `, before ${w.toFixed(0)} ms, ratio ${(w / b).toFixed(3)}`;
    }
    log(
      `pair ${i + 1}: bare ${b.toFixed(0)} ms, ralph ${r.toFixed(0)} ms, ratio ${(r / b).toFixed(3)}${was}`,
    );
  }
  const ratio = median(ratios);
  if (process.argv.includes('--cpu')) {
    const cpu = { bare: [], ralph: [], before: [] };
    for (let i = 0; i < pairs; i += 1) {
      cpu.bare.push(await treeCpu(bare));
      cpu.ralph.push(await treeCpu(ralph));
      if (before !== undefined) cpu.before.push(await treeCpu(before));
    }
    const m = (list) => median(list).toFixed(0);
    log(
      `CPU of the whole tree, medians: bare ${m(cpu.bare)} ms, ralph ${m(cpu.ralph)} ms (${(median(cpu.ralph) / median(cpu.bare)).toFixed(3)}×)` +
        (before === undefined
          ? ''
          : `, before ${m(cpu.before)} ms (${(median(cpu.before) / median(cpu.bare)).toFixed(3)}×)`),
    );
  }
  if (before !== undefined) log(`before (${beforeCli}): ratio ${median(beforeRatios).toFixed(3)}`);
  finish([
    row(`CLI loop: bare sh loop, ${ROUNDS} rounds`, +median(bareMs).toFixed(0), 'ms', '(floor)', null),
    row(`CLI loop: ralph run, ${ROUNDS} rounds`, +median(ralphMs).toFixed(0), 'ms', '(figure)', null),
    row(
      'CLI loop: ralph / bare',
      +ratio.toFixed(3),
      '×',
      '≤ 1.08×',
      ratio <= 1.08,
      `median of ${pairs} pairs`,
    ),
  ]);
});
