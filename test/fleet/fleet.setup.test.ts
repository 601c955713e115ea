import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { loadDbos } from '../../src/fleet/sdk.js';
import { createRalphFleet } from '../../src/fleet.js';
import { NO_LIVE_WORKER } from '../../src/hosts/cli/fleet-cli.js';
import {
  databaseFailures,
  ralph,
  spawnRalph,
  stopWorker,
  submitArgs,
  useFleetScene,
  waitAllGone,
  waitFor,
} from './harness.js';

const scene = useFleetScene();

/** This package's version, as the refusals name it. */
const VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/** How many times the whole fleet starts at once, each time on a database nobody set up yet. */
const STARTS = 4;
const WORKERS = 3;
const SUBMITS = 3;

describe('a fleet started all at once on a database nobody set up yet', () => {
  it(`${WORKERS} workers, ${SUBMITS} submits, a status and a runs all live, ${STARTS} times over, and every run completes`, async () => {
    for (let start = 1; start <= STARTS; start += 1) {
      const url = scene.databaseFor(`at_once_${start}`);
      const env = { FLEET_AGENT_ROUNDS: '2' };
      const workspaces = await Promise.all(Array.from({ length: SUBMITS }, () => scene.workspace()));
      // Spawned in one go, before any of them could have set anything up.
      const workers = Array.from({ length: WORKERS }, (_, n) =>
        spawnRalph(
          [
            'worker',
            '--database-url',
            url,
            '--worker-id',
            `w${start}-${n}`,
            '--lease',
            '2s',
            '--allow-agent-command',
          ],
          env,
        ),
      );
      const submits = workspaces.map((ws, n) =>
        spawnRalph(submitArgs(url, ws.dir, `Count to two (${start}.${n})`)),
      );
      const status = spawnRalph(['status', 'no-such-run', '--database-url', url]);
      const runs = spawnRalph(['runs', '--json', '--database-url', url]);
      scene.processes.push(...workers, ...submits, status, runs);

      // A submit may finish before any worker holds its lease, and says so; nothing else.
      const noWorkerYet = `ralph submit: ${NO_LIVE_WORKER}\n`;
      for (const submit of submits) {
        const { code } = await submit.exited;
        expect(code, submit.stderr()).toBe(0);
        expect(['', noWorkerYet]).toContain(submit.stderr());
        expect(submit.stdout()).toMatch(/^\S+\n$/);
      }
      // The read-only commands never create the database: one that comes before every worker and submit finds none
      // (exit 1, saying so); one that comes during the setup waits for it. Neither meets a half-made database.
      const noDatabase = `ralph: there is no database at ${url}; is the URL right? (a fleet's database is created by its first ralph worker or ralph submit)\n`;
      expect(await status.exited).toEqual({ code: 1, signal: null });
      expect(['ralph: there is no fleet run no-such-run\n', noDatabase]).toContain(status.stderr());
      const listed = await runs.exited;
      expect([
        { code: 0, signal: null, stderr: '' },
        { code: 1, signal: null, stderr: noDatabase },
      ]).toContainEqual({ ...listed, stderr: runs.stderr() });
      for (const worker of workers) {
        await waitFor(
          () => worker.stderr().includes('taking runs') || worker.child.exitCode !== null,
          'every worker to take runs',
        );
        expect(databaseFailures(worker)).toEqual([]);
        expect(worker.child.exitCode).toBe(null);
      }

      for (const [n, submit] of submits.entries()) {
        const id = submit.stdout().trim();
        const waited = await ralph(['wait', id, '--json', '--database-url', url]);
        expect(waited.code).toBe(0);
        expect(JSON.parse(waited.stdout)).toMatchObject({
          runId: id,
          result: { status: 'complete', rounds: 2 },
        });
        const ws = workspaces[n];
        expect([ws?.startsOf(1).length, ws?.startsOf(2).length]).toEqual([1, 1]);
      }
      for (const worker of workers) {
        await stopWorker(worker);
        expect(await worker.exited).toEqual({ code: 0, signal: null });
        expect(databaseFailures(worker)).toEqual([]);
      }
      const agents = workspaces.flatMap((ws) => ws.log().map((line) => Number(line.split(' ')[2])));
      await waitAllGone(agents, 'every agent to be gone');
    }
  }, 300_000);
});

/** Runs SQL statements on one database of the scene's server. */
async function sql(url: string, ...statements: string[]): Promise<void> {
  const pool = createPgPool({ connectionString: url, max: 1 });
  try {
    for (const statement of statements) await pool.query(statement);
  } finally {
    await pool.end();
  }
}

/** A database as the first release left it: DBOS's tables, and the lease table, with no record of ralph's schema. */
async function firstReleaseDatabase(name: string): Promise<string> {
  await sql(scene.databaseFor('postgres'), `CREATE DATABASE ${name}`);
  const url = scene.databaseFor(name);
  const { DBOS } = await loadDbos();
  await DBOS.migrate(url);
  await sql(
    url,
    `CREATE TABLE ralph_fleet_workers (worker_id text PRIMARY KEY, hostname text NOT NULL, boot_id text NOT NULL,
      pid_namespace text NOT NULL, pid integer NOT NULL, start_time text NOT NULL, lease_ms integer NOT NULL,
      lease_until timestamptz NOT NULL)`,
  );
  return url;
}

/** `ralph worker` offering the example agent (which needs --allow-agent-command) on the fleet at `url`. */
const exampleWorkerArgs = (url: string): string[] => [
  'worker',
  '--database-url',
  url,
  '--agent',
  'example',
  '--allow-agent-command',
];

describe("a fleet's database another release of ralph set up", () => {
  it("the first release's: the worker and the clients refuse it (exit 2), say what to do, and change nothing", async () => {
    const url = await firstReleaseDatabase('first_release');
    const worker = await ralph(exampleWorkerArgs(url));
    expect(worker.code).toBe(2);
    expect(worker.stderr).toBe(
      `ralph worker: the fleet's database ${url} was set up by ralph-machine 0.1 (fleet schema 1), which ` +
        `ralph-machine ${VERSION} (fleet schema 2) cannot use; let workers of ralph-machine 0.1 finish or cancel ` +
        'its runs, then run this version on a fresh database (another database name in --database-url: ralph creates it)\n',
    );
    const ws = await scene.workspace();
    const submit = await ralph(submitArgs(url, ws.dir));
    expect(submit.code).toBe(2);
    expect(submit.stdout).toBe('');
    expect(submit.stderr).toMatch(
      /^ralph: the fleet's database .* was set up by ralph-machine 0\.1 \(fleet schema 1\)/,
    );
    const pool = createPgPool({ connectionString: url, max: 1 });
    const { rows } = await pool.query("SELECT to_regclass('ralph_fleet_schema') IS NULL AS untouched");
    await pool.end();
    expect(rows).toEqual([{ untouched: true }]);
  }, 60_000);

  it("a later release's: refused (exit 2), naming the release to run it with", async () => {
    const url = scene.databaseFor('later_release');
    // Set up as a submit would (the read-only `ralph runs` creates nothing), then marked as a later release's.
    await (await createRalphFleet({ databaseUrl: url })).close();
    await sql(url, "UPDATE ralph_fleet_schema SET version = 3, ralph_version = '9.0.0'");
    const worker = await ralph(exampleWorkerArgs(url));
    expect(worker.code).toBe(2);
    expect(worker.stderr).toBe(
      `ralph worker: the fleet's database ${url} was set up by ralph-machine 9.0.0 (fleet schema 3), which ` +
        `ralph-machine ${VERSION} (fleet schema 2) cannot use; run this fleet with ralph-machine 9.0.0 or later\n`,
    );
  }, 60_000);
});
