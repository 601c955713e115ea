// The fleet measured (issue 24, item 4): N runs of R rounds of a trivial /bin/sh agent on 1, 2 and 4 `ralph worker`
// processes (the built CLI) against one throwaway Postgres cluster, a fresh database per worker count. The workers
// are started first, then the N runs submitted at once through the library's fleet client (a burst: the queue's wait
// includes the backlog). From the runs' stored timestamps (DBOS's workflow_status and the steps' operation_outputs):
// wall time from the first submit to the last run's end, rounds per second, and each run's wait from submit to its
// first round (median, p99). Sampled every 250 ms while the runs go: the Postgres connections each worker process
// holds (its TCP sockets to the server, from /proc) and all the database's connections (pg_stat_activity), maxima.
// Then the durable overhead, side by side: one worker (concurrency 1) on an idle queue, pairs of one fleet run (its
// stored start to its stored end) and the same run in this process (createRalphTool + commandProvider over the same
// agent command, no database), interleaved; the median over the pairs of (fleet − in process) / R.
// Run: npm run bench:fleet [-- --runs 1000 --rounds 3 --workers 1,2,4 --concurrency 1 --pairs 20]
// [--no-fsync] [--queued N] [--profile-workers DIR] [--db-connections N] [--max-connections N] [--idle-seconds S]
// Issue 35 (a hundred workers): each burst's agent appends a line a round to a log the bench counts per run (every
// round's agent spawned exactly once, every round step stored once), the workers' stderr is searched for connection
// errors, and the idle fleet's transactions a second per worker are measured before the burst. The cluster's
// max_connections fits the largest worker count (--max-connections to choose it); --db-connections N is passed to
// each `ralph worker` (its connection cap, issue 35 item 1).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tsImport } from 'tsx/esm/api';
import { createPgPool } from '../dist/fleet/pg-pool.js';
import { createRalphFleet } from '../dist/fleet.js';
import { commandProvider, createProviderRegistry, createRalphTool } from '../dist/index.js';
import {
  cli,
  log,
  median,
  now,
  numberFlag,
  percentile,
  shAgentSource,
  stringFlag,
  withTempDir,
} from './lib.mjs';

const runs = numberFlag('runs', 1000);
const rounds = numberFlag('rounds', 3);
const workerCounts = (stringFlag('workers') ?? '1,2,4').split(',').map(Number);
const concurrency = numberFlag('concurrency', 1);
const pairs = numberFlag('pairs', 20);
// --no-fsync: the tests' cluster as it is (fsync off); by default each commit waits for its WAL on disk, as in
// production.
const fsync = !process.argv.includes('--no-fsync');
// --queued N: also N runs left queued (copies of one submitted run, inserted by SQL; no worker), to see what a deep
// queue costs: the dequeue query's plan and time, the table's size, `ralph runs` and `ralph status`.
const queued = numberFlag('queued', 0);
// --profile-workers DIR: each worker writes a CPU profile there when it stops (for bench/profile.mjs).
const profileDir = stringFlag('profile-workers');
const workerNode = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
const SAMPLE_MS = 250;
// --db-connections N: passed to each worker as its own flag (absent: the worker's default).
const dbConnections = stringFlag('db-connections');
// --idle-seconds S: how long the started workers are watched idle before the burst (0: not measured).
const idleSeconds = numberFlag('idle-seconds', 10);
/** A burst that makes no progress for this long is a broken fleet, not a slow one. */
const STALL_MS = 120_000;

// The test suite's throwaway cluster (initdb in a temp folder as the postgres user; max_connections 200).
const { startTestPostgres } = await tsImport('../test/support/postgres.ts', import.meta.url);
const { connectionsHeldBy, socketsTo } = await tsImport('../test/support/tcp-sockets.ts', import.meta.url);

/** The CPU time (user + system, ms) process `pid` used so far; with `reaped`, also that of its exited children. */
function cpuMsOf(pid, reaped = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // utime, stime, cutime, cstime, in clock ticks (USER_HZ, 100 a second).
    return ((f[11] + f[12] + (reaped ? f[13] + f[14] : 0)) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** The CPU time the cluster on `port` used so far: its postmaster, its live processes and those that exited. */
function postgresCpuMs(port) {
  const stats = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      stats.push({ pid: Number(entry), ppid, args });
    } catch {
      // gone meanwhile
    }
  }
  const postmaster = stats.find(
    (p) => p.args[0]?.endsWith('/postgres') && p.args[p.args.indexOf('-p') + 1] === String(port),
  );
  if (postmaster === undefined) return 0;
  const children = stats.filter((p) => p.ppid === postmaster.pid);
  return cpuMsOf(postmaster.pid, true) + children.reduce((sum, p) => sum + cpuMsOf(p.pid), 0);
}

/** Starts `ralph worker` on `url`; resolves once it takes runs. Its stderr is kept to its last 4 KB. */
async function startWorker(url, workerId, workerConcurrency) {
  const child = spawn(
    process.execPath,
    [
      ...workerNode,
      cli,
      'worker',
      '--allow-agent-command',
      '--worker-id',
      workerId,
      '--concurrency',
      String(workerConcurrency),
      ...(dbConnections === undefined ? [] : ['--db-connections', dbConnections]),
    ],
    { env: { ...process.env, RALPH_DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let tail = '';
  const errors = connectionErrorCounter();
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      tail = (tail + chunk).slice(-4096);
      errors.add(chunk);
      if (tail.includes('taking runs')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`worker ${workerId} exited ${code}:\n${tail}`)));
  });
  return {
    pid: child.pid,
    tail: () => tail,
    connectionErrors: () => errors.count(),
    connectionErrorSample: () => errors.sample(),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// Issue 35: the checks of a burst on many workers (exactly once, connection errors, the idle load).

/** What in a worker's stderr says a connection failed or was refused (the server full, reset, timed out). */
const CONNECTION_ERROR =
  /too many clients|remaining connection slots|ECONNREFUSED|ECONNRESET|connection terminated|timeout exceeded when trying to connect|could not connect/i;

/** Counts the lines of a worker's stderr that tell of a connection error, and keeps the first for the report. */
function connectionErrorCounter() {
  let count = 0;
  let first = '';
  let partial = '';
  return {
    add(chunk) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!CONNECTION_ERROR.test(line)) continue;
        count += 1;
        if (first === '') first = line.slice(0, 300);
      }
    },
    count: () => count + (CONNECTION_ERROR.test(partial) ? 1 : 0),
    sample: () => first,
  };
}

/**
 * The agent of a burst: the bench's sh agent, which also appends `<run> <round>` to the log its command names, the run
 * read from its objective (`… (bench run N)`, in the prompt on its stdin), so the bench counts each round's spawns.
 */
function onceAgentSource() {
  return `t=none
while IFS= read -r line; do
  case "$line" in *"(bench run "*) t=\${line#*(bench run }; t=\${t%%)*};; esac
done
printf '%s %s\\n' "$t" "$RALPH_ROUND" >> "$1"
${shAgentSource.replace('cat > /dev/null\n', '')}`;
}

/** The burst's submission of run `index`: its own objective, the agent that logs its rounds to `logPath`. */
function onceSubmission(submission, agentPath, logPath, index) {
  return {
    ...submission,
    objective: `${submission.objective} (bench run ${index})`,
    agent: { agentCommand: `sh ${agentPath} ${logPath}` },
  };
}

/**
 * Whether each run's rounds ran exactly once: each of the `expected` runs ended SUCCESS with its round steps `round-1`
 * … `round-R` stored once each (DBOS's step rows), and its agent spawned once a round (the log's lines).
 */
function exactlyOnce(stored, logText, expected) {
  const spawns = new Map();
  for (const line of logText.split('\n')) {
    if (line === '') continue;
    spawns.set(line, (spawns.get(line) ?? 0) + 1);
  }
  let notSucceeded = 0;
  let stepsWrong = 0;
  let spawnedTwice = 0;
  let spawnedNever = 0;
  for (const run of stored) {
    if (run.status !== 'SUCCESS') notSucceeded += 1;
    if (run.rounds !== rounds || run.distinctRounds !== rounds) stepsWrong += 1;
  }
  for (let index = 0; index < expected; index += 1) {
    for (let round = 1; round <= rounds; round += 1) {
      const n = spawns.get(`${index} ${round}`) ?? 0;
      if (n > 1) spawnedTwice += 1;
      if (n === 0) spawnedNever += 1;
    }
  }
  const lines = [...spawns.values()].reduce((sum, n) => sum + n, 0);
  const ok =
    stored.length === expected &&
    notSucceeded === 0 &&
    stepsWrong === 0 &&
    spawnedTwice === 0 &&
    spawnedNever === 0 &&
    lines === expected * rounds;
  return {
    ok,
    runsStored: stored.length,
    notSucceeded,
    stepsWrong,
    spawnedTwice,
    spawnedNever,
    spawns: lines,
  };
}

/**
 * The workers idle for `seconds`: a second of one idle worker, in the database's transactions and rows written (their
 * polls and heartbeats), and in CPU time, the cluster's (its backends) and the worker's own.
 */
async function idleLoad(db, workers, seconds, port) {
  if (seconds <= 0) return undefined;
  // A backend flushes its counters at most once a second: a second's settling on each side.
  await sleep(1_000);
  const before = await databaseStats(db);
  const pgCpu = postgresCpuMs(port);
  const workerCpu = workers.reduce((sum, w) => sum + cpuMsOf(w.pid), 0);
  const start = now();
  await sleep(seconds * 1000);
  const elapsedS = (now() - start) / 1000;
  const pgCpuMs = postgresCpuMs(port) - pgCpu;
  const workerCpuMs = workers.reduce((sum, w) => sum + cpuMsOf(w.pid), 0) - workerCpu;
  await sleep(1_000);
  const after = await databaseStats(db);
  const perWorkerSecond = (value) => value / elapsedS / workers.length;
  return {
    commitsPerSPerWorker: perWorkerSecond(after.commits - before.commits),
    rowsPerSPerWorker: perWorkerSecond(after.rows - before.rows),
    postgresCpuMsPerSPerWorker: perWorkerSecond(pgCpuMs),
    workerCpuMsPerSPerWorker: perWorkerSecond(workerCpuMs),
  };
}

/** The size (bytes, with indexes and TOAST) of each table a run writes to, by name. */
async function tableSizes(db) {
  const { rows } = await db.query(
    `SELECT n.nspname || '.' || c.relname AS name, pg_total_relation_size(c.oid) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND (n.nspname = 'dbos' OR c.relname LIKE 'ralph_fleet_%')`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

/** What each table grew by a run (KB), the tables that grew, largest first. */
function growthByTable(before, after, runCount) {
  return [...after]
    .map(([name, bytes]) => ({ name, kbPerRun: (bytes - (before.get(name) ?? 0)) / 1024 / runCount }))
    .filter((t) => t.kbPerRun > 0)
    .sort((a, b) => b.kbPerRun - a.kbPerRun);
}

/** The max_connections a cluster needs for `workers` workers of at most `perWorker` connections, with room to spare. */
function maxConnectionsFor(workers, perWorker) {
  return Math.max(200, workers * perWorker + 50);
}

/** Prints the issue 35 checks of each burst: exactly once, connection errors, peak connections, idle load. */
function printFleetChecks(results) {
  console.log('');
  console.log(
    '| workers | started in | exactly once (runs stored / not SUCCESS / steps wrong / spawned twice / never) | ' +
      'connection errors (stderr lines) | peak connections a worker / all | idle, a worker: transactions / rows a second; CPU |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const o = r.once;
    const idle =
      r.idle === undefined
        ? 'not measured'
        : `${r.idle.commitsPerSPerWorker.toFixed(2)} / ${r.idle.rowsPerSPerWorker.toFixed(2)}; CPU ms a second: ` +
          `Postgres ${r.idle.postgresCpuMsPerSPerWorker.toFixed(2)}, the worker ${r.idle.workerCpuMsPerSPerWorker.toFixed(2)}`;
    console.log(
      `| ${r.workers} | ${r.startS.toFixed(1)} s | ${o.ok ? 'yes' : 'NO'}: ${o.runsStored} / ${o.notSucceeded} / ` +
        `${o.stepsWrong} / ${o.spawnedTwice} / ${o.spawnedNever} (${o.spawns} spawns) | ${r.connectionErrors}` +
        `${r.connectionErrorSample === '' ? '' : ` (${r.connectionErrorSample})`} | ` +
        `${r.connectionsPerWorker} / ${r.connectionsTotal} | ${idle} |`,
    );
    if (!o.ok || r.connectionErrors > 0) process.exitCode = 1;
  }
  for (const r of results) {
    const tables = r.growth.map((t) => `${t.name} ${t.kbPerRun.toFixed(1)}`).join(', ');
    console.log(`\n${r.workers} worker(s): growth a run by table (KB): ${tables}`);
  }
}

/** Each run's stored times (ms since the epoch): submitted, dequeued, its first round's start, ended; its rounds. */
async function storedRuns(db) {
  const { rows } = await db.query(
    `SELECT w.workflow_uuid AS id, w.status, w.created_at AS submitted, w.started_at_epoch_ms AS dequeued,
            w.updated_at AS ended, w.executor_id AS worker,
            min(o.started_at_epoch_ms) FILTER (WHERE o.function_name = 'round-1') AS first_round,
            count(o.*) FILTER (WHERE o.function_name LIKE 'round-%') AS rounds,
            count(DISTINCT o.function_name) FILTER (WHERE o.function_name LIKE 'round-%') AS distinct_rounds,
            sum(o.completed_at_epoch_ms - o.started_at_epoch_ms) FILTER (WHERE o.function_name LIKE 'round-%')
              AS in_steps
       FROM dbos.workflow_status w LEFT JOIN dbos.operation_outputs o ON o.workflow_uuid = w.workflow_uuid
      GROUP BY w.workflow_uuid`,
  );
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    worker: r.worker,
    submitted: Number(r.submitted),
    dequeued: Number(r.dequeued),
    firstRound: Number(r.first_round),
    ended: Number(r.ended),
    rounds: Number(r.rounds),
    distinctRounds: Number(r.distinct_rounds),
    /** The time inside the rounds' steps (the agents' runs, as the worker saw them). */
    inSteps: Number(r.in_steps),
  }));
}

/** The database's counters (transactions, rows written) and size; a backend flushes its counters when it exits. */
async function databaseStats(db) {
  const { rows } = await db.query(
    `SELECT xact_commit AS commits, tup_inserted + tup_updated + tup_deleted AS rows, pg_database_size(datname) AS bytes
       FROM pg_stat_database WHERE datname = $1`,
    [db.name],
  );
  return {
    commits: Number(rows[0].commits) - db.queries,
    rows: Number(rows[0].rows),
    bytes: Number(rows[0].bytes),
  };
}

/** A database of its own on the cluster, and a pool to read it with. */
function databaseOn(pg, name) {
  const url = pg.url.replace(/\/ralph$/, `/${name}`);
  const pool = createPgPool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  const db = {
    url,
    pool,
    name,
    /** The bench's own transactions on this database, not counted as the fleet's. */
    queries: 0,
    query(text, values) {
      db.queries += 1;
      return pool.query(text, values);
    },
  };
  return db;
}

/** N runs at once on W workers: throughput, queue wait, connections, CPU. */
async function burst(pg, submission, workerCount) {
  const db = databaseOn(pg, `bench_w${workerCount}`);
  const startedAt = now();
  const workers = await Promise.all(
    Array.from({ length: workerCount }, (_, i) =>
      startWorker(db.url, `bench-${workerCount}-${i + 1}`, concurrency),
    ),
  );
  const startS = (now() - startedAt) / 1000;
  const idle = await idleLoad(db, workers, idleSeconds, pg.port);
  const agentPath = join(submission.cwd, 'agent-once.sh');
  const logPath = join(submission.cwd, `rounds-w${workerCount}.log`);
  await writeFile(agentPath, onceAgentSource());
  await writeFile(logPath, '');
  const cpuBefore = workers.map((w) => cpuMsOf(w.pid));
  const statsBefore = await databaseStats(db);
  const tablesBefore = await tableSizes(db);
  const fleet = await createRalphFleet({ databaseUrl: db.url });
  let maxPerWorker = 0;
  let maxTotal = 0;
  let sampling = true;
  const sample = async () => {
    while (sampling) {
      const inodes = socketsTo(pg.port);
      for (const w of workers) maxPerWorker = Math.max(maxPerWorker, connectionsHeldBy(w.pid, inodes));
      const { rows } = await db.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [db.name],
      );
      maxTotal = Math.max(maxTotal, Number(rows[0].n) - fleetClientConnections());
      await sleep(SAMPLE_MS);
    }
  };
  // The bench's own fleet client holds connections too: counted from its socket, not the workers'.
  const fleetClientConnections = () => connectionsHeldBy(process.pid, socketsTo(pg.port)) - 1;
  const sampler = sample();
  const submitStart = now();
  const ids = [];
  for (let i = 0; i < runs; i += 50) {
    const chunk = Array.from({ length: Math.min(50, runs - i) }, (_, j) =>
      fleet.submit(onceSubmission(submission, agentPath, logPath, i + j)),
    );
    ids.push(...(await Promise.all(chunk)));
  }
  const submitMs = now() - submitStart;
  let done = 0;
  let progressAt = now();
  while (done < runs) {
    await sleep(SAMPLE_MS);
    const { rows } = await db.query(
      `SELECT count(*) AS n FROM dbos.workflow_status WHERE status NOT IN ('ENQUEUED', 'PENDING', 'DELAYED')`,
    );
    const settled = Number(rows[0].n);
    if (settled > done) progressAt = now();
    done = settled;
    if (now() - progressAt > STALL_MS) {
      throw new Error(`no run settled for ${STALL_MS / 1000} s (${done} of ${runs}):\n${workers[0].tail()}`);
    }
  }
  sampling = false;
  await sampler;
  const cpuMs = workers.reduce((sum, w, i) => sum + cpuMsOf(w.pid) - cpuBefore[i], 0);
  await fleet.close();
  await Promise.all(workers.map((w) => w.stop()));
  // A stopped worker leaves no connection behind (a server closes a backend as soon as its client's socket goes).
  const left = await db.query(
    'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [db.name],
  );
  const stored = await storedRuns(db);
  const statsAfter = await databaseStats(db);
  const growth = growthByTable(tablesBefore, await tableSizes(db), runs);
  await db.pool.end();
  const once = exactlyOnce(stored, readFileSync(logPath, 'utf8'), runs);
  const connectionErrors = workers.reduce((sum, w) => sum + w.connectionErrors(), 0);
  const connectionErrorSample = workers.map((w) => w.connectionErrorSample()).find((l) => l !== '') ?? '';
  const first = Math.min(...stored.map((r) => r.submitted));
  const last = Math.max(...stored.map((r) => r.ended));
  const waits = stored.map((r) => r.firstRound - r.submitted);
  const wallS = (last - first) / 1000;
  return {
    workers: workerCount,
    wallS,
    roundsPerS: (runs * rounds) / wallS,
    submitMs,
    waitMedianS: median(waits) / 1000,
    waitP99S: percentile(waits, 99) / 1000,
    runMedianMs: median(stored.map((r) => r.ended - r.dequeued)),
    connectionsPerWorker: maxPerWorker,
    connectionsTotal: maxTotal,
    workerCpuMsPerRound: cpuMs / (runs * rounds),
    byWorker: new Set(stored.map((r) => r.worker)).size,
    connectionsLeft: Number(left.rows[0].n),
    commitsPerRound: (statsAfter.commits - statsBefore.commits) / (runs * rounds),
    rowsPerRound: (statsAfter.rows - statsBefore.rows) / (runs * rounds),
    kbPerRun: (statsAfter.bytes - statsBefore.bytes) / 1024 / runs,
    startS,
    idle,
    once,
    connectionErrors,
    connectionErrorSample,
    growth,
  };
}

/** One worker on an idle queue: pairs of one fleet run and the same run in process, interleaved. */
async function durableOverhead(pg, submission, inProcessTool, agent) {
  const db = databaseOn(pg, 'bench_overhead');
  const worker = await startWorker(db.url, 'bench-overhead', 1);
  const fleet = await createRalphFleet({ databaseUrl: db.url });
  const inProcess = async () => {
    const start = now();
    const envelope = await inProcessTool.execute({ objective: submission.objective }, { agent });
    if (envelope.result.status !== 'complete' || envelope.result.rounds !== rounds) {
      throw new Error(
        `the in-process run ended ${envelope.result.status} after ${envelope.result.rounds} rounds`,
      );
    }
    return now() - start;
  };
  const fleetRun = async () => {
    // Submitted at a random point of the worker's 1 s queue poll, as a run arrives, not right after the last one.
    await sleep(Math.random() * 1000);
    const id = await fleet.submit(submission);
    await fleet.wait(id, { pollMs: 100 });
    return id;
  };
  await inProcess(); // warm-ups
  await fleetRun();
  const inProcessMs = [];
  const ids = [];
  // CPU: the worker's own (not its agents'), the cluster's, and this process's own in its in-process runs.
  let fleetCpuMs = 0;
  let postgresMs = 0;
  let inProcessCpuMs = 0;
  for (let i = 0; i < pairs; i += 1) {
    const [workerCpu, pgCpu] = [cpuMsOf(worker.pid), postgresCpuMs(pg.port)];
    ids.push(await fleetRun());
    fleetCpuMs += cpuMsOf(worker.pid) - workerCpu;
    postgresMs += postgresCpuMs(pg.port) - pgCpu;
    const cpu = process.cpuUsage();
    inProcessMs.push(await inProcess());
    const used = process.cpuUsage(cpu);
    inProcessCpuMs += (used.user + used.system) / 1000;
  }
  await fleet.close();
  await worker.stop();
  const stored = new Map((await storedRuns(db)).map((r) => [r.id, r]));
  await db.pool.end();
  const fleetMs = ids.map((id) => stored.get(id).ended - stored.get(id).dequeued);
  const idleWaitMs = ids.map((id) => stored.get(id).firstRound - stored.get(id).submitted);
  const overheadMs = fleetMs.map((ms, i) => (ms - inProcessMs[i]) / rounds);
  return {
    fleetMs: median(fleetMs),
    inProcessMs: median(inProcessMs),
    overheadMs: median(overheadMs),
    workerCpuPerRound: fleetCpuMs / (pairs * rounds),
    postgresCpuPerRound: postgresMs / (pairs * rounds),
    inProcessCpuPerRound: inProcessCpuMs / (pairs * rounds),
    idleWaitMedianMs: median(idleWaitMs),
    idleWaitP99Ms: percentile(idleWaitMs, 99),
    // Where a fleet run's time goes: before its first round (taken → round 1), inside the rounds' steps, and the rest
    // (between the steps, and the end).
    startMs: median(ids.map((id) => stored.get(id).firstRound - stored.get(id).dequeued)),
    inStepsMs: median(ids.map((id) => stored.get(id).inSteps)),
  };
}

/** N runs queued and no worker: the dequeue query's plan and time, the table's size, list and status times. */
async function deepQueue(pg, submission) {
  const db = databaseOn(pg, 'bench_queued');
  const fleet = await createRalphFleet({ databaseUrl: db.url });
  const template = await fleet.submit(submission);
  await db.query(
    `INSERT INTO dbos.workflow_status
       SELECT (jsonb_populate_record(w, jsonb_build_object('workflow_uuid', 'queued-' || g, 'created_at', w.created_at + g))).*
         FROM dbos.workflow_status w, generate_series(1, $2::int) g WHERE w.workflow_uuid = $1`,
    [template, queued],
  );
  await db.query('VACUUM ANALYZE dbos.workflow_status');
  // DBOS's dequeue (findAndMarkStartableWorkflows, a queue with a per-worker limit only), for one run.
  const dequeue = `SELECT workflow_uuid FROM dbos.workflow_status
     WHERE status = 'ENQUEUED' AND queue_name = 'ralph-runs'
       AND (application_version = 'ralph-fleet-2' OR application_version IS NULL)
       AND (application_name = ANY(ARRAY['ralph-machine']) OR application_name IS NULL)
     ORDER BY priority ASC, created_at ASC LIMIT 1 FOR UPDATE SKIP LOCKED`;
  const client = await db.pool.connect();
  let plan;
  try {
    await client.query('BEGIN');
    plan = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${dequeue}`)).rows[0]['QUERY PLAN'][0];
    await client.query('ROLLBACK');
  } finally {
    client.release();
  }
  const { rows } = await db.query(
    `SELECT pg_total_relation_size('dbos.workflow_status') AS total, pg_relation_size('dbos.workflow_status') AS heap`,
  );
  const timed = async (body) => {
    await body();
    const start = now();
    await body();
    return now() - start;
  };
  const listMs = await timed(() => fleet.list({ limit: 20 }));
  const statusMs = await timed(() => fleet.status(template));
  await fleet.close();
  await db.pool.end();
  const nodes = [];
  for (let node = plan.Plan; node !== undefined; node = node.Plans?.[0]) {
    nodes.push(`${node['Node Type']}${node['Index Name'] === undefined ? '' : ` on ${node['Index Name']}`}`);
  }
  return {
    plan: nodes.join(' → '),
    dequeueMs: plan['Execution Time'],
    tableMb: Number(rows[0].total) / 2 ** 20,
    heapMb: Number(rows[0].heap) / 2 ** 20,
    listMs,
    statusMs,
  };
}

const fixed = (value, digits = 1) => value.toFixed(digits);

await withTempDir('fleet', async (dir) => {
  const agentPath = join(dir, 'agent.sh');
  await writeFile(agentPath, shAgentSource);
  const agentCommand = `sh ${agentPath}`;
  const submission = { objective: 'Write the report', agent: { agentCommand }, cwd: dir, maxRounds: rounds };
  const providers = createProviderRegistry();
  providers.register(commandProvider({ command: agentCommand }));
  const tool = createRalphTool({ subagentProvider: 'command', maxRounds: rounds }, { providers });
  const agent = { id: 'bench', cwd: dir };
  const loadBefore = loadavg();
  const started = now();
  const maxConnections =
    numberFlag('max-connections', 0) ||
    maxConnectionsFor(Math.max(...workerCounts), Number(dbConnections ?? 12) + 1);
  const pg = await startTestPostgres({ fsync, maxConnections });
  try {
    log(
      `${cpus().length} cores, load ${loadBefore.map((l) => fixed(l, 2)).join(' ')}; Postgres ${pg.url} ` +
        `(fsync ${fsync ? 'on' : 'off'}); ${runs} runs × ${rounds} rounds of \`${agentCommand}\`, worker concurrency ${concurrency}`,
    );
    const overhead = await durableOverhead(pg, submission, tool, agent);
    log(
      `durable overhead: fleet run ${fixed(overhead.fleetMs)} ms, in process ${fixed(overhead.inProcessMs)} ms ` +
        `(medians of ${pairs} pairs) → ${fixed(overhead.overheadMs)} ms a round`,
    );
    const results = [];
    for (const count of workerCounts) {
      const result = await burst(pg, submission, count);
      results.push(result);
      log(
        `${count} worker(s): ${fixed(result.wallS)} s, ${fixed(result.roundsPerS)} rounds/s, ` +
          `wait median ${fixed(result.waitMedianS)} s p99 ${fixed(result.waitP99S)} s, ` +
          `${result.connectionsPerWorker} connections per worker, ${result.connectionsTotal} in all, ` +
          `${result.connectionsLeft} left once the workers stopped`,
      );
    }
    log(`max_connections ${maxConnections}`);
    printFleetChecks(results);
    const base = results[0];
    console.log('');
    console.log(
      '| workers | runs × rounds | wall | rounds/s | × 1 worker | submit → first round, median / p99 | ' +
        'run, dequeued → end (median) | worker CPU a round | connections: per worker / all (max) | ' +
        'transactions / rows written a round | database growth a run | submit rate |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of results) {
      console.log(
        `| ${r.workers} (${r.byWorker} ran runs) | ${runs} × ${rounds} | ${fixed(r.wallS)} s | ${fixed(r.roundsPerS)} | ` +
          `${fixed(r.roundsPerS / base.roundsPerS, 2)}× | ${fixed(r.waitMedianS)} s / ${fixed(r.waitP99S)} s | ` +
          `${fixed(r.runMedianMs)} ms | ${fixed(r.workerCpuMsPerRound)} ms | ` +
          `${r.connectionsPerWorker} / ${r.connectionsTotal} | ${fixed(r.commitsPerRound)} / ${fixed(r.rowsPerRound)} | ` +
          `${fixed(r.kbPerRun)} KB | ${fixed((runs * 1000) / r.submitMs, 0)} runs/s |`,
      );
    }
    console.log('');
    console.log('| durable overhead (1 worker, idle queue) | measured | target |');
    console.log('| --- | --- | --- |');
    console.log(
      `| run of ${rounds} rounds on the fleet, dequeued → end (median) | ${fixed(overhead.fleetMs)} ms | |`,
    );
    console.log(`| the same run in process, no database (median) | ${fixed(overhead.inProcessMs)} ms | |`);
    console.log(
      `| overhead a round, (fleet − in process) / ${rounds}, median of ${pairs} pairs | ` +
        `${fixed(overhead.overheadMs)} ms | ≤ 10 ms ${overhead.overheadMs <= 10 ? 'pass' : 'MISS'} |`,
    );
    console.log(
      `| CPU a round: the worker / Postgres (with the client's waits) / the same run in process | ` +
        `${fixed(overhead.workerCpuPerRound)} ms / ${fixed(overhead.postgresCpuPerRound)} ms / ` +
        `${fixed(overhead.inProcessCpuPerRound)} ms | |`,
    );
    console.log(
      `| the fleet run's parts: taken → round 1 / inside the ${rounds} rounds' steps / the rest (medians) | ` +
        `${fixed(overhead.startMs)} ms / ${fixed(overhead.inStepsMs)} ms / ` +
        `${fixed(overhead.fleetMs - overhead.startMs - overhead.inStepsMs)} ms | |`,
    );
    console.log(
      `| idle queue: submit → first round, median / p99 | ${fixed(overhead.idleWaitMedianMs, 0)} ms / ` +
        `${fixed(overhead.idleWaitP99Ms, 0)} ms | |`,
    );
    const scaling = results.find((r) => r.workers === 4);
    if (scaling !== undefined) {
      const ratio = scaling.roundsPerS / base.roundsPerS;
      console.log(
        `\n4 workers / ${base.workers}: ${fixed(ratio, 2)}× (target ≥ 3×) ${ratio >= 3 ? 'pass' : 'MISS'}`,
      );
    }
    if (queued > 0) {
      const deep = await deepQueue(pg, submission);
      console.log(`\n${queued + 1} runs queued, no worker:`);
      console.log(`- the dequeue query: ${fixed(deep.dequeueMs, 2)} ms (EXPLAIN ANALYZE), ${deep.plan}`);
      console.log(
        `- dbos.workflow_status: ${fixed(deep.tableMb)} MB with its indexes (${fixed(deep.heapMb)} MB of rows)`,
      );
      console.log(
        `- the fleet client's list of 20 (ralph runs): ${fixed(deep.listMs)} ms; a status: ${fixed(deep.statusMs)} ms`,
      );
    }
    const loadAfter = loadavg();
    console.log(
      `load average ${loadBefore.map((l) => fixed(l, 2)).join(' ')} before, ` +
        `${loadAfter.map((l) => fixed(l, 2)).join(' ')} after; ${fixed((now() - started) / 1000, 0)} s in all`,
    );
  } finally {
    await pg.destroy();
  }
});
