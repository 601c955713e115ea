// An idle fleet answers at once (issue 35, item 3), side by side: this build and, with --before DIR, a base build
// (its dist/ and node_modules/, e.g. a worktree of the previous commit, built), on one throwaway Postgres (fsync
// on), a database each, one `ralph worker` (concurrency 1) each, both idle at once.
// 1. Idle worker load: each database's transactions (pg_stat_database xact_commit + xact_rollback) over --idle-s
//    seconds (default 40), from a minute after its start, while its worker is idle and nothing else but the bench's own two reads is connected,
//    per second. A statement outside a transaction is one transaction; a queue poll is one transaction of a few
//    statements (BEGIN, the claim, COMMIT): the figure counts it once.
// 2. Submit → first round on an idle fleet: --runs (default 24) runs of one round, each submitted at a random time
//    (0–3 s after the previous run ended, so at a random point of any poll), alternating between the builds; from
//    the stored times, the run's created_at to its round-1 step's start: median, p99.
// Run: npm run build && node bench/fleet-idle.mjs [--before /work/base-wake] [--runs 24] [--idle-s 40]
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { log, median, numberFlag, percentile, shAgentSource, stringFlag, withTempDir } from './lib.mjs';

const runs = numberFlag('runs', 24);
const idleS = numberFlag('idle-s', 40);
const beforeDir = stringFlag('before');
const { startTestPostgres } = await tsImport('../test/support/postgres.ts', import.meta.url);

const builds = [
  ...(beforeDir === undefined ? [] : [{ name: 'before', dir: resolve(beforeDir) }]),
  { name: 'after', dir: resolve(import.meta.dirname, '..') },
];

/** Starts `ralph worker` of `build` on `url`; resolves once it takes runs. Its stderr is kept to its last 4 KB. */
async function startWorker(build, url) {
  const child = spawn(
    process.execPath,
    [join(build.dir, 'dist/hosts/cli/main.js'), 'worker', '--allow-agent-command', '--worker-id', build.name],
    { env: { ...process.env, RALPH_DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let tail = '';
  const exited = new Promise((done) => child.on('exit', done));
  await new Promise((done, fail) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      tail = (tail + chunk).slice(-4096);
      if (tail.includes('taking runs')) done();
    });
    child.on('exit', (code) => fail(new Error(`worker ${build.name} exited ${code}:\n${tail}`)));
  });
  return {
    tail: () => tail,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The database's transactions so far (committed and rolled back). */
async function transactions(pool, name) {
  const { rows } = await pool.query(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [name],
  );
  return Number(rows[0].n);
}

/** Each run's wait from its submit (created_at) to its first round's start, ms. */
async function waits(pool, ids) {
  const { rows } = await pool.query(
    `SELECT w.workflow_uuid AS id, o.started_at_epoch_ms - w.created_at AS wait
       FROM dbos.workflow_status w JOIN dbos.operation_outputs o ON o.workflow_uuid = w.workflow_uuid
      WHERE o.function_name = 'round-1' AND w.workflow_uuid = ANY($1)`,
    [ids],
  );
  if (rows.length !== ids.length)
    throw new Error(`expected ${ids.length} first rounds, found ${rows.length}`);
  return rows.map((r) => Number(r.wait));
}

await withTempDir('fleet-idle', async (dir) => {
  const agentPath = join(dir, 'agent.sh');
  await writeFile(agentPath, shAgentSource);
  const submission = {
    objective: 'Write the report',
    agent: { agentCommand: `sh ${agentPath}` },
    cwd: dir,
    maxRounds: 1,
  };
  const pg = await startTestPostgres({ fsync: true });
  try {
    for (const build of builds) {
      build.db = `idle_${build.name}`;
      build.url = pg.url.replace(/\/ralph$/, `/${build.db}`);
      const { createRalphFleet } = await import(pathToFileURL(join(build.dir, 'dist/fleet.js')).href);
      const { createPgPool } = await import(pathToFileURL(join(build.dir, 'dist/fleet/pg-pool.js')).href);
      // The client sets the database up (as its build does), before its worker starts.
      build.fleet = await createRalphFleet({ databaseUrl: build.url });
      build.worker = await startWorker(build, build.url);
      build.pool = createPgPool({ connectionString: build.url, max: 1, connectionTimeoutMillis: 5_000 });
      build.pool.on('error', () => {});
      build.ids = [];
    }
    log(`workers up: ${builds.map((b) => b.name).join(', ')}; idle for ${idleS} s`);
    // Past the start: DBOS's schedule poll runs every second for its first minute, then every 30 s.
    await sleep(62_000);
    for (const build of builds) build.idleFrom = await transactions(build.pool, build.db);
    await sleep(idleS * 1000);
    for (const build of builds) {
      // Less the bench's own two reads.
      build.idlePerS = ((await transactions(build.pool, build.db)) - build.idleFrom - 1) / idleS;
    }
    for (let i = 0; i < runs; i += 1) {
      for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
        await sleep(Math.random() * 3_000);
        const id = await build.fleet.submit(submission);
        const status = await build.fleet.wait(id, { pollMs: 50 });
        if (status.state !== 'complete') throw new Error(`run ${id} on ${build.name}: ${status.state}`);
        build.ids.push(id);
      }
    }
    console.log('| build | submit → first round, median / p99 | idle worker: transactions/s |');
    console.log('| --- | --- | --- |');
    for (const build of builds) {
      const w = await waits(build.pool, build.ids);
      console.log(
        `| ${build.name} | ${median(w).toFixed(0)} ms / ${percentile(w, 99).toFixed(0)} ms (${w.length} runs) | ` +
          `${build.idlePerS.toFixed(2)} |`,
      );
    }
  } finally {
    for (const build of builds) {
      await build.fleet?.close();
      await build.worker?.stop();
      await build.pool?.end();
    }
    await pg.destroy();
  }
});
