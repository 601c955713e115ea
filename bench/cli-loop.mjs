// Target 4, the CLI loop: `ralph run` over 20 rounds of a trivial node agent against the bare shell loop running
// the same agent 20 times (`sh -c 'for i in …; do node agent.cjs < prompt > /dev/null; done'`), launched side by
// side (interleaved, bare first then ralph, per pair), medians of the pairs. Run: npm run build && node bench/cli-loop.mjs [--pairs 7]
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderRoundPrompt } from '../dist/index.js';
import {
  cli,
  finish,
  log,
  median,
  numberFlag,
  row,
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
  await timeProcess(bare, { cwd: dir });
  await timeProcess(ralph, { cwd: dir });
  const bareMs = [];
  const ralphMs = [];
  const ratios = [];
  for (let i = 0; i < pairs; i += 1) {
    const b = await timeProcess(bare, { cwd: dir });
    const r = await timeProcess(ralph, { cwd: dir });
    bareMs.push(b);
    ralphMs.push(r);
    ratios.push(r / b);
    log(`pair ${i + 1}: bare ${b.toFixed(0)} ms, ralph ${r.toFixed(0)} ms, ratio ${(r / b).toFixed(3)}`);
  }
  const ratio = median(ratios);
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
