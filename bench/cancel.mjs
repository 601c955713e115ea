// Target 7, cancel: the time from RalphRun.cancel() to the run's result settled, through the library with the
// commandProvider and real /bin/sh children. The child signals it is ready (its SIGTERM disposition set) by creating
// a file; cancel() is called once it exists. A cooperative child (`exec sleep`, which dies of SIGTERM) should stop
// within 100 ms; a SIGTERM-ignoring one (`trap '' TERM`, inherited by its sleeps) is killed at the grace (500 ms
// here), and the figure is its overshoot past the grace. Medians of several runs each.
// Run: npm run build && node bench/cancel.mjs [--runs 7]
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { commandProvider, createRalphEngine, normalizeConfig } from '../dist/index.js';
import { finish, log, median, now, numberFlag, row, withTempDir } from './lib.mjs';

const runs = numberFlag('runs', 7);
const GRACE_MS = 500;

const cooperative = `cat > /dev/null
: > ready
exec sleep 60
`;
const ignoring = `trap '' TERM
cat > /dev/null
: > ready
while :; do sleep 1; done
`;

async function waitFor(path) {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 1));
}

await withTempDir('cancel', async (dir) => {
  await writeFile(join(dir, 'cooperative.sh'), cooperative);
  await writeFile(join(dir, 'ignoring.sh'), ignoring);
  const engine = createRalphEngine();
  const agent = { id: 'bench', cwd: dir };
  const ready = join(dir, 'ready');

  async function cancelOnce(script) {
    await rm(ready, { force: true });
    const provider = commandProvider({ command: ['sh', script] });
    const config = normalizeConfig({ subagentProvider: 'command', terminationGraceMs: GRACE_MS });
    const run = engine.start({
      args: { objective: 'wait to be cancelled', maxRounds: 1 },
      agent,
      config,
      provider,
    });
    await waitFor(ready);
    const cancelledAt = now();
    run.cancel();
    await run.result.then(
      () => {
        throw new Error('the run settled without being cancelled');
      },
      (error) => {
        if (error.code !== 'cancelled') throw error;
      },
    );
    const ms = now() - cancelledAt;
    run.dispose();
    return ms;
  }

  // The grace timer of the second case starts before cancel() returns; the calls are alternated, a warm-up each.
  await cancelOnce('cooperative.sh');
  await cancelOnce('ignoring.sh');
  const coop = [];
  const ign = [];
  for (let i = 0; i < runs; i += 1) {
    const c = await cancelOnce('cooperative.sh');
    const g = await cancelOnce('ignoring.sh');
    coop.push(c);
    ign.push(g);
    log(`run ${i + 1}: cooperative ${c.toFixed(1)} ms, SIGTERM-ignoring ${g.toFixed(1)} ms`);
  }
  const c = median(coop);
  const g = median(ign);
  finish([
    row(
      'Cancel: cooperative child, cancel() → settled',
      +c.toFixed(1),
      'ms',
      '≤ 100 ms',
      c <= 100,
      `median of ${runs}, max ${Math.max(...coop).toFixed(1)}`,
    ),
    row(
      `Cancel: SIGTERM-ignoring child, overshoot past the ${GRACE_MS} ms grace`,
      +(g - GRACE_MS).toFixed(1),
      'ms',
      '≤ 100 ms past the grace',
      g - GRACE_MS <= 100 && g >= GRACE_MS,
      `settled after ${g.toFixed(1)} ms`,
    ),
  ]);
});
