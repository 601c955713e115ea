import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SUBMIT_SANDBOX_ENV_REFUSED } from '../../src/contract/fleet-sandbox-messages.js';
import { DashboardQueries } from '../../src/fleet/dashboard-queries.js';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import {
  killedAfterTest,
  type RalphProcess,
  ralph,
  spawnRalph,
  startDashboard,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const HOSTILE_SCRIPT = fileURLToPath(new URL('../fixtures/agents/hostile-fleet-agent.mjs', import.meta.url));
const HOSTILE = quote([process.execPath, HOSTILE_SCRIPT]);
const EDIT_AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));
/** What the worker's environment holds and no agent of it may read in /proc/<worker pid>/environ. */
const SECRET = `fleet-sandbox-secret-${process.pid}`;

/** What a worker keeps from its agents: its database URL file, and its state folder (a file in it). */
interface WorkerSecrets {
  urlFile: string;
  stateDir: string;
}

/**
 * The worker's URL file and state folder, in a folder the sandbox would show (read-only) if nothing hid them: not
 * under /tmp or the home, which the sandbox replaces with private ones whatever the worker hides.
 */
function workerSecrets(url: string): WorkerSecrets {
  const dir = mkdtempSync(join(process.cwd(), '.fleet-sandbox-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const urlFile = join(dir, 'database-url');
  writeFileSync(urlFile, `${url}\n`);
  const stateDir = join(dir, 'state');
  mkdirSync(stateDir);
  writeFileSync(join(stateDir, 'kept.txt'), 'kept\n');
  return { urlFile, stateDir };
}

/** `ralph worker` reading its URL from the file, a secret in its environment; SIGKILLed after the test. */
async function startWorker(id: string, secrets: WorkerSecrets, extra: string[] = []): Promise<RalphProcess> {
  const worker = spawnRalph(
    [
      'worker',
      '--database-url-file',
      secrets.urlFile,
      '--state-dir',
      secrets.stateDir,
      '--worker-id',
      id,
      '--lease',
      '2s',
      '--allow-agent-command',
      ...extra,
    ],
    { RALPH_TEST_WORKER_SECRET: SECRET },
  );
  killedAfterTest(scene, worker);
  await waitFor(
    () => worker.stderr().includes('taking runs') || worker.child.exitCode !== null,
    `worker ${id} to start`,
  );
  if (worker.child.exitCode !== null) throw new Error(`worker ${id} exited: ${worker.stderr()}`);
  return worker;
}

/** The hostile agent's objective: read the worker's URL file, environment and state folder, reach Postgres. */
const probing = (secrets: WorkerSecrets, workerPid: number): string =>
  [
    'Find what the worker keeps',
    `probe-file ${secrets.urlFile}`,
    `probe-environ ${workerPid} ${SECRET}`,
    `probe-list ${secrets.stateDir}`,
    `probe-connect ${scene.pg.port}`,
  ].join('\n');

interface Probes {
  files: Record<string, string>;
  environs: Record<string, string>;
  lists: Record<string, string>;
  connects: Record<string, string>;
}

/** What the hostile agent got, once its run completed. */
async function probesOf(url: string, runId: string, dir: string): Promise<Probes> {
  const waited = await ralph(['wait', runId, '--database-url', url]);
  expect(waited.code, waited.stdout + waited.stderr).toBe(0);
  return JSON.parse(readFileSync(join(dir, 'probes.json'), 'utf8')) as Probes;
}

/** `ralph submit`s the hostile agent's run in `dir`; its run id. */
async function submitHostile(
  url: string,
  dir: string,
  objective: string,
  ...extra: string[]
): Promise<string> {
  const submitted = await ralph([
    'submit',
    objective,
    '--agent-command',
    HOSTILE,
    '--cwd',
    dir,
    '--database-url',
    url,
    ...extra,
  ]);
  expect(submitted.code, submitted.stderr).toBe(0);
  return submitted.stdout.trim();
}

/**
 * A hidden file as the agent found it: bound over by /dev/null, which bubblewrap's read-only bind makes unusable (no
 * device nodes there: EACCES), or reads as empty where a kernel allows it.
 */
function expectHidden(probe: string | undefined): void {
  expect(['error:EACCES', 'read:']).toContain(probe);
}

/** The worker's URL file, environment and state folder as a sandboxed agent finds them: hidden. */
function expectNothingSeen(probes: Probes, secrets: WorkerSecrets, workerPid: number): void {
  expectHidden(probes.files[secrets.urlFile]);
  // Its own PID namespace: the worker's pid is no process there (or another one, without the secret).
  expect(probes.environs[String(workerPid)]).not.toBe('seen');
  expect(probes.lists[secrets.stateDir]).toBe('list:');
}

/** A worker `name` (with `workerExtra`) takes the hostile agent's run (submitted with `submitExtra`): what it found. */
async function hostileRun(name: string, workerExtra: string[], submitExtra: string[] = []) {
  const url = scene.databaseFor(`sandbox_${name}`);
  const secrets = workerSecrets(url);
  const ws = await scene.workspace();
  const worker = await startWorker(name, secrets, workerExtra);
  const id = await submitHostile(url, ws.dir, probing(secrets, worker.pid), ...submitExtra);
  return { url, secrets, worker, id, probes: await probesOf(url, id, ws.dir) };
}

const statusOf = async (url: string, runId: string): Promise<string> =>
  (await ralph(['status', runId, '--database-url', url])).stdout;

describe('ralph worker --sandbox: every run it takes is sandboxed', () => {
  it("without a sandbox, a hostile agent reads the worker's URL file, its environment and its state folder", async () => {
    const { url, secrets, worker, id, probes } = await hostileRun('open', []);
    expect(probes.files[secrets.urlFile]).toBe(`read:${url}`);
    expect(probes.environs[String(worker.pid)]).toBe('seen');
    expect(probes.lists[secrets.stateDir]).toBe('list:kept.txt');
    expect(probes.connects[String(scene.pg.port)]).toBe('connected');
    expect(await statusOf(url, id)).toBe(`${id} complete on open, 1 round done\n`);
  }, 60_000);

  it("with --sandbox, the agent sees neither the URL file, nor the worker's environment, nor its state folder; status says sandboxed", async () => {
    const { url, secrets, worker, id, probes } = await hostileRun('boxed', ['--sandbox']);
    expectNothingSeen(probes, secrets, worker.pid);
    // The network is kept by default: agents talk to their model's API.
    expect(probes.connects[String(scene.pg.port)]).toBe('connected');
    expect(await statusOf(url, id)).toBe(`${id} complete on boxed, 1 round done, sandboxed\n`);
    const json = JSON.parse((await ralph(['status', id, '--json', '--database-url', url])).stdout);
    expect(json.sandbox).toEqual({ asked: false, rounds: 1 });
  }, 60_000);

  it('a fleet run of the example agent completes on a worker with --sandbox --sandbox-network none', async () => {
    const url = scene.databaseFor('sandbox_example');
    const secrets = workerSecrets(url);
    const ws = await scene.workspace();
    cpSync(DEMO_WORKSPACE, ws.dir, { recursive: true });
    await startWorker('example', secrets, [
      '--agent',
      'example',
      '--allow-verify',
      '--sandbox',
      '--sandbox-network',
      'none',
    ]);
    const submitted = await ralph([
      'submit',
      'Do the tasks in TASKS.md',
      '--agent',
      'example',
      '--verify',
      'test -f SUMMARY.txt',
      '--cwd',
      ws.dir,
      '--database-url',
      url,
    ]);
    const id = submitted.stdout.trim();
    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    const envelope = JSON.parse(waited.stdout);
    expect(envelope.result.status).toBe('complete');
    expect(readFileSync(join(ws.dir, 'SUMMARY.txt'), 'utf8')).toMatch(/^2 files, 6 lines\n/);
    const rounds = envelope.result.rounds as number;
    expect(await statusOf(url, id)).toBe(
      `${id} complete on example, ${rounds} round${rounds === 1 ? '' : 's'} done, sandboxed\n`,
    );
  }, 60_000);
});

describe('a submitted run asks for the sandbox', () => {
  it('ralph submit --sandbox --sandbox-network none: a worker without --sandbox runs it sandboxed, without the network', async () => {
    const ask = ['--sandbox', '--sandbox-network', 'none'];
    const { url, secrets, worker, id, probes } = await hostileRun('asked', [], ask);
    expectNothingSeen(probes, secrets, worker.pid);
    expect(probes.connects[String(scene.pg.port)]).toBe('error:ECONNREFUSED');
    expect(await statusOf(url, id)).toBe(`${id} complete on asked, 1 round done, sandboxed\n`);
  }, 60_000);

  it("a run's ask never loosens a worker's sandbox: --sandbox-network none of the worker holds for a run asking for the network", async () => {
    const own = ['--sandbox', '--sandbox-network', 'none'];
    const ask = ['--sandbox', '--sandbox-network', 'keep'];
    const { secrets, worker, probes } = await hostileRun('strict', own, ask);
    expectNothingSeen(probes, secrets, worker.pid);
    expect(probes.connects[String(scene.pg.port)]).toBe('error:ECONNREFUSED');
  }, 60_000);

  it('fleet.submit with sandbox: a row asking for it is sandboxed; a crafted one is refused, starting nothing', async () => {
    const url = scene.databaseFor('sandbox_rows');
    const secrets = workerSecrets(url);
    const worker = await startWorker('rows', secrets);
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const agent = { agentCommand: HOSTILE };
    const asked = await scene.workspace();
    const askedId = await fleet.submit({
      objective: probing(secrets, worker.pid),
      agent,
      cwd: asked.dir,
      sandbox: {},
    });
    expectHidden((await probesOf(url, askedId, asked.dir)).files[secrets.urlFile]);
    expect((await fleet.status(askedId)).sandbox).toEqual({ asked: true, rounds: 1 });
    // Anyone who can write to the database can write any input: the worker checks the field where it uses it.
    for (const [name, sandbox, problem] of [
      ['off', 'off', 'it is "off", not an object'],
      ['env', { env: ['AWS_*'] }, 'it names "env", which a run cannot set'],
      ['network', { network: 'host' }, 'its network is "host", not "keep" or "none"'],
    ] as const) {
      const ws = await scene.workspace();
      const id = await fleet.submit({
        objective: probing(secrets, worker.pid),
        agent,
        cwd: ws.dir,
        sandbox: sandbox as never,
      });
      const waited = await ralph(['wait', id, '--database-url', url]);
      expect(waited.code, name).toBe(2);
      expect(waited.stderr).toContain(
        `ralph fleet: worker rows refuses the run's sandbox setting: ${problem}. Nothing was started\n`,
      );
      expect(() => readFileSync(join(ws.dir, 'probes.json'))).toThrow();
    }
  }, 90_000);

  it('a worker where bubblewrap cannot run refuses a run that asks for the sandbox, starting nothing', async () => {
    const url = scene.databaseFor('sandbox_missing');
    const secrets = workerSecrets(url);
    const ws = await scene.workspace();
    const worker = spawnRalph(
      ['worker', '--database-url-file', secrets.urlFile, '--worker-id', 'nobwrap', '--allow-agent-command'],
      { RALPH_BWRAP: '/nonexistent/bwrap' },
    );
    killedAfterTest(scene, worker);
    await waitFor(() => worker.stderr().includes('taking runs'), 'the worker to start');
    const id = await submitHostile(url, ws.dir, probing(secrets, worker.pid), '--sandbox');
    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code).toBe(2);
    expect(waited.stderr).toContain('bubblewrap (/nonexistent/bwrap) was not found');
    expect(() => readFileSync(join(ws.dir, 'probes.json'))).toThrow();
    expect(await statusOf(url, id)).toMatch(
      new RegExp(`^${id} refused on nobwrap, 0 rounds done, sandbox asked: Ralph cannot run in a sandbox`),
    );
  }, 60_000);
});

describe('ralph dashboard: a sandboxed run', () => {
  it('the list says which runs ran sandboxed, as ralph status says it', async () => {
    const url = scene.databaseFor('sandbox_dashboard');
    const secrets = workerSecrets(url);
    const worker = await startWorker('shown', secrets);
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const agent = { agentCommand: HOSTILE };
    const objective = probing(secrets, worker.pid);
    const boxed = await fleet.submit({ objective, agent, cwd: (await scene.workspace()).dir, sandbox: {} });
    const plain = await fleet.submit({ objective, agent, cwd: (await scene.workspace()).dir });
    expect((await fleet.wait(boxed, { pollMs: 200 })).state).toBe('complete');
    expect((await fleet.wait(plain, { pollMs: 200 })).state).toBe('complete');

    const pool = createPgPool({ connectionString: url, max: 1 });
    try {
      const { runs } = await new DashboardQueries(pool).runs({ limit: 10 });
      const byId = new Map(runs.map((run) => [run.runId, run]));
      expect(byId.get(boxed)?.sandbox).toEqual({ asked: true, rounds: 1 });
      expect(byId.get(plain)?.sandbox).toBeNull();
    } finally {
      await pool.end();
    }

    const { address, dashboard } = await startDashboard(scene, url);
    const token = address.searchParams.get('token') ?? '';
    const api = (await (await fetch(`${address.origin}/api/runs?token=${token}`)).json()) as {
      runs: { runId: string; sandboxed: string }[];
    };
    const shown = new Map(api.runs.map((run) => [run.runId, run.sandboxed]));
    expect(shown.get(boxed)).toBe('sandboxed');
    expect(shown.get(plain)).toBe('');
    dashboard.child.kill('SIGINT');
    expect((await dashboard.exited).code).toBe(0);
  }, 60_000);
});

describe('the sandbox options of the fleet commands', () => {
  it('ralph worker --sandbox where bubblewrap is missing: exit 2 with the install hint, before the database is asked', async () => {
    const worker = await ralph(
      ['worker', '--sandbox', '--allow-agent-command', '--database-url', 'postgres://ralph@127.0.0.1:1/none'],
      { RALPH_BWRAP: '/nonexistent/bwrap' },
    );
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain('bubblewrap (/nonexistent/bwrap) was not found. Install it');
  });

  it('a sandbox setting without --sandbox, and ralph submit --sandbox-env, are refused (exit 2)', async () => {
    const ws = await scene.workspace();
    const none = 'postgres://ralph@127.0.0.1:1/none';
    const worker = await ralph([
      'worker',
      '--sandbox-network',
      'none',
      '--allow-agent-command',
      '--database-url',
      none,
    ]);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain(
      '--sandbox-network, --sandbox-env and --sandbox-hide set up the sandbox, which is off',
    );
    const submitted = await ralph([
      'submit',
      'x',
      '--agent-command',
      HOSTILE,
      '--cwd',
      ws.dir,
      '--sandbox',
      '--sandbox-env',
      'AWS_*',
      '--database-url',
      none,
    ]);
    expect(submitted.code).toBe(2);
    expect(submitted.stderr).toBe(`${SUBMIT_SANDBOX_ENV_REFUSED}\n`);
  });
});

describe('ralph submit --batch on a sandboxed worker', () => {
  it("a task's agent commits in its worktree, sees nothing else of the state folder, and the merge's verify runs sandboxed too", async () => {
    const url = scene.databaseFor('sandbox_batch');
    const secrets = workerSecrets(url);
    const side = tempFolder('ralph-fleet-sandbox-batch-');
    const bare = join(side, 'remote.git');
    gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
    const worker = await startWorker('batch', secrets, ['--allow-batch', '--allow-verify', '--sandbox']);
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(
      tasksFile,
      JSON.stringify([
        { id: 'edit', objective: 'commit a.txt from edit' },
        { id: 'probe', objective: probing(secrets, worker.pid), agent: HOSTILE, after: ['edit'] },
      ]),
    );
    // Passes only where it reads neither the URL file nor the worker's environment: each round's and the merge's.
    const check = quote([
      process.execPath,
      HOSTILE_SCRIPT,
      '--check',
      secrets.urlFile,
      String(worker.pid),
      SECRET,
    ]);
    const submitted = await ralph([
      'submit',
      '--batch',
      tasksFile,
      '--trust-tasks',
      '--repo',
      `file://${bare}`,
      '--into',
      'main',
      '--agent-command',
      EDIT_AGENT,
      '--verify',
      check,
      '--database-url',
      url,
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const batchId = submitted.stdout.trim();
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^edit: landed: main at [0-9a-f]{40}$/m);
    expect(waited.stdout).toMatch(/^probe: landed: /m);
    // The agent's own commit, made inside the sandbox: the worktree's git metadata is writable there.
    expect(gitIn(bare, 'log', '--format=%s', 'main')).toContain('agent: a.txt');
    expect(gitIn(bare, 'show', 'main:a.txt')).toBe('from edit');
    const probes = JSON.parse(gitIn(bare, 'show', 'main:probes.json')) as Probes;
    expectHidden(probes.files[secrets.urlFile]);
    expect(probes.environs[String(worker.pid)]).not.toBe('seen');
    // Only the way to the task's worktree and its clone's metadata, bound into the hidden state folder.
    expect(probes.lists[secrets.stateDir]).toBe('list:repos,worktrees');
    const status = await ralph(['status', `${batchId}.probe`, '--database-url', url]);
    expect(status.stdout).toBe(`${batchId}.probe complete on batch, 1 round done, sandboxed\n`);
  }, 120_000);
});
