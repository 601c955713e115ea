import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import {
  ralph,
  reaperOf,
  spawnRalph,
  startWorker,
  stopWorker,
  submitRun,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();

const ENV_AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('./fixtures/env-agent.mjs', import.meta.url)),
]);
const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/bin/claude', import.meta.url));

/** Whether the test server holds a database of this name. */
async function databaseExists(name: string): Promise<boolean> {
  const pool = createPgPool({ connectionString: scene.databaseFor('postgres'), max: 1 });
  try {
    const { rows } = await pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length === 1;
  } finally {
    await pool.end();
  }
}

/** Submits through the library, as anyone with write access to the database could (an INSERT would do the same). */
async function enqueue(url: string, agent: Record<string, string>, cwd: string): Promise<string> {
  const fleet = await createRalphFleet({ databaseUrl: url });
  scene.fleets.push(fleet);
  return fleet.submit({ objective: 'Look around', agent, cwd });
}

describe('the worker decides what it runs', () => {
  it('a worker offering no agent is refused (exit 2) before the database is asked', async () => {
    const worker = await ralph(['worker', '--database-url', 'postgres://ralph@127.0.0.1:1/none']);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toBe(
      'ralph worker needs the agents it will run: pass --agent claude|codex|example (repeatable; --claude-path and ' +
        '--codex-path set their executables), and --allow-agent-command to also run runs submitted with --agent-command\n',
    );
  });

  it('a run asking for a command the worker does not allow ends refused, starting nothing; ralph wait says so, exit 2', async () => {
    const url = scene.databaseFor('refusing');
    const ws = await scene.workspace();
    const worker = await startWorker(url, 'picky', { offer: ['--agent', 'claude'] });
    scene.processes.push(worker);
    const pwned = join(ws.dir, 'pwned');
    const submitted = await submitRun(url, ws.dir, { command: `/bin/sh -c 'touch ${pwned}'` });
    const id = submitted.stdout.trim();
    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code).toBe(2);
    expect(waited.stderr).toContain(
      'ralph fleet: this worker does not run runs submitted with --agent-command; it offers --agent claude. Nothing was started\n',
    );
    expect(existsSync(pwned)).toBe(false);
    const status = await ralph(['status', id, '--database-url', url]);
    expect(status.stdout).toBe(
      `${id} refused on picky, 0 rounds done: ralph fleet: this worker does not run runs submitted with ` +
        '--agent-command; it offers --agent claude. Nothing was started\n',
    );
    // The worker logs the run's start and its end, one line each.
    expect(worker.stderr()).toContain(`ralph worker picky: running ${id}\n`);
    expect(worker.stderr()).toContain(
      `ralph worker picky: ${id} refused: ralph fleet: this worker does not run`,
    );
    await stopWorker(worker);
  }, 60_000);

  it("a run's --verify command runs only on a worker started with --allow-verify; elsewhere the run ends refused", async () => {
    const url = scene.databaseFor('verifying');
    const ws = await scene.workspace();
    const worker = await startWorker(url, 'careful');
    scene.processes.push(worker);
    const pwned = join(ws.dir, 'pwned');
    const submitted = await submitRun(url, ws.dir, {
      command: ENV_AGENT,
      extra: ['--verify', `/bin/sh -c 'touch ${pwned}'`],
    });
    const id = submitted.stdout.trim();
    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code).toBe(2);
    expect(waited.stderr).toContain(
      "ralph fleet: worker careful does not run a submitted run's --verify command (start it with --allow-verify " +
        'to let submitters choose one). Nothing was started\n',
    );
    // Neither the verify command nor the agent ran.
    expect(existsSync(pwned)).toBe(false);
    expect(existsSync(join(ws.dir, 'env.json'))).toBe(false);
    await stopWorker(worker);

    const trusting = await startWorker(url, 'trusting', {
      offer: ['--allow-agent-command', '--allow-verify'],
    });
    scene.processes.push(trusting);
    const again = await submitRun(url, ws.dir, {
      command: ENV_AGENT,
      extra: ['--verify', `/bin/sh -c 'touch ${pwned}'`],
    });
    const waitedAgain = await ralph(['wait', again.stdout.trim(), '--database-url', url]);
    expect(waitedAgain.code, waitedAgain.stderr).toBe(0);
    expect(existsSync(pwned)).toBe(true);
    await stopWorker(trusting);
  }, 60_000);

  it('--agent example runs only with --allow-agent-command: the checklist a submitter put in the workspace is commands', async () => {
    const url = scene.databaseFor('example');
    const ws = await scene.workspace();
    const pwned = join(ws.dir, 'pwned');
    writeFileSync(join(ws.dir, 'TASKS.md'), `- [ ] Run \`touch ${pwned}\` — check: \`touch ${pwned}\`\n`);
    const id = await enqueue(url, { agent: 'example' }, ws.dir);
    const worker = spawnRalph([
      'worker',
      '--database-url',
      url,
      '--worker-id',
      'examples',
      '--agent',
      'example',
    ]);
    scene.processes.push(worker);
    // A worker that took the run would have run the checklist's command: whichever comes first ends the wait.
    await waitFor(
      () => worker.child.exitCode !== null || existsSync(pwned),
      'the worker to end or the run to start',
    );
    expect(existsSync(pwned)).toBe(false);
    expect(worker.child.exitCode).toBe(2);
    expect(worker.stderr()).toBe(
      "ralph worker --agent example runs the commands of a run's checklist (the backticked commands of its " +
        "workspace's TASKS.md), which its submitter chooses: pass --allow-agent-command with it, as for runs " +
        'submitted with --agent-command\n',
    );
    // Opted into, as a command is, the example agent runs the run's checklist.
    const opted = await startWorker(url, 'examples', {
      offer: ['--agent', 'example', '--allow-agent-command'],
    });
    scene.processes.push(opted);
    const waited = await ralph(['wait', id, '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(existsSync(pwned)).toBe(true);
    await stopWorker(opted);
  }, 60_000);

  it("a preset runs with the worker's own executable, never the path a submitted run names", async () => {
    const url = scene.databaseFor('paths');
    const ws = await scene.workspace();
    const evil = join(ws.dir, 'evil-claude');
    writeFileSync(evil, `#!/bin/sh\ntouch ${join(ws.dir, 'pwned')}\n`, { mode: 0o755 });
    const worker = await startWorker(url, 'own-claude', {
      offer: ['--agent', 'claude', '--claude-path', FAKE_CLAUDE],
    });
    scene.processes.push(worker);
    const id = await enqueue(url, { agent: 'claude', claudePath: evil }, ws.dir);
    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ result: { status: 'complete', rounds: 1 } });
    expect(existsSync(join(ws.dir, 'claude-was-here.txt'))).toBe(true);
    expect(existsSync(join(ws.dir, 'pwned'))).toBe(false);
    expect(worker.stderr()).toContain(`ralph worker own-claude: ${id} complete after 1 round\n`);
    await stopWorker(worker);
  }, 60_000);

  it('ralph submit refuses an executable path (exit 2): it is the worker’s to choose', async () => {
    const ws = await scene.workspace();
    const submitted = await ralph([
      'submit',
      'x',
      '--agent',
      'claude',
      '--claude-path',
      '/bin/sh',
      '--cwd',
      ws.dir,
      '--database-url',
      'postgres://ralph@127.0.0.1:1/none',
    ]);
    expect(submitted.code).toBe(2);
    expect(submitted.stderr).toBe(
      "ralph submit --claude-path: the executable is the worker's to choose (ralph worker --claude-path); nothing was submitted\n",
    );
  });
});

describe("the fleet's credentials stay with the worker", () => {
  it('no agent (nor the reaper) the worker starts inherits RALPH_DATABASE_URL or PG*; the URL may come from a file', async () => {
    const url = scene.databaseFor('secrets');
    const ws = await scene.workspace();
    const urlFile = join(ws.dir, 'database-url');
    writeFileSync(urlFile, `${url}\n`, { mode: 0o600 });
    const worker = spawnRalph(
      ['worker', '--database-url-file', urlFile, '--worker-id', 'sealed', '--allow-agent-command'],
      { RALPH_DATABASE_URL: url, PGPASSWORD: 'not-needed-by-trust-auth', PGAPPNAME: 'ralph-test' },
    );
    scene.processes.push(worker);
    await waitFor(
      () => worker.stderr().includes('taking runs') || worker.child.exitCode !== null,
      'the worker',
    );
    expect(worker.stderr()).toContain('taking runs');
    expect(readFileSync(`/proc/${worker.pid}/cmdline`, 'utf8')).not.toContain('postgres://');
    const id = await enqueue(url, { agentCommand: ENV_AGENT }, ws.dir);
    const waited = await ralph(['wait', id, '--database-url-file', urlFile]);
    expect(waited.code).toBe(0);
    expect(JSON.parse(readFileSync(join(ws.dir, 'env.json'), 'utf8'))).toEqual({});
    const reaper = reaperOf(worker.pid);
    expect(reaper).toBeDefined();
    const reaperEnv = readFileSync(`/proc/${reaper}/environ`, 'utf8').split('\0');
    expect(reaperEnv.filter((entry) => /^(RALPH_DATABASE_URL|PG)/.test(entry))).toEqual([]);
    await stopWorker(worker);
  }, 60_000);

  it("ralph run's agents do not get the fleet's URL from the user's shell either (PG* stay, for the workspace's tests)", async () => {
    const ws = await scene.workspace();
    const env = { RALPH_DATABASE_URL: 'postgres://me:secret@fleet/ralph', PGDATABASE: 'app_test' };
    const run = await ralph(['run', 'Look around', '--agent-command', ENV_AGENT, '--cwd', ws.dir], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(join(ws.dir, 'env.json'), 'utf8'))).toEqual({ PGDATABASE: 'app_test' });
  });

  it('a password in --database-url gets a warning naming the safer ways', async () => {
    const url = scene.databaseFor('warned').replace('ralph@', 'ralph:secret@');
    const listed = await ralph(['runs', '--database-url', url]);
    expect(listed.stderr).toContain(
      'ralph: warning: the password in --database-url is readable by every local user (the command line of this ' +
        'process); put the URL in a file (--database-url-file FILE) or in RALPH_DATABASE_URL\n',
    );
    const fromEnv = await ralph(['runs'], { RALPH_DATABASE_URL: url });
    expect(fromEnv.stderr).not.toContain('warning');
  }, 30_000);
});

describe('the fleet speaks where it used to go quiet', () => {
  it('a URL that is not postgres:// is refused (exit 2) before any connection', async () => {
    const bare = await ralph(['runs', '--database-url', 'localhost:5432']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(
      'ralph --database-url localhost:5432 is not a Postgres URL: write it as postgres://user@host:5432/database\n',
    );
    const mysql = await ralph(['status', 'x', '--database-url', 'mysql://me:pw@db.example/app']);
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain(
      'ralph --database-url mysql://me:***@db.example/app is not a Postgres URL: write it as postgres://user@host:5432/database\n',
    );
  });

  it('read-only commands never create a database; an empty fleet says "no runs, no workers"', async () => {
    const typo = scene.databaseFor('typo');
    for (const args of [['runs'], ['status', 'x'], ['wait', 'x'], ['cancel', 'x']]) {
      const answer = await ralph([...args, '--database-url', typo]);
      expect(answer.code, args.join(' ')).toBe(1);
      expect(answer.stderr).toBe(
        `ralph: there is no database at ${typo}; is the URL right? (a fleet's database is created by its first ` +
          'ralph worker or ralph submit)\n',
      );
    }
    expect(await databaseExists('typo')).toBe(false);

    const pool = createPgPool({ connectionString: scene.databaseFor('postgres'), max: 1 });
    await pool.query('CREATE DATABASE blank');
    await pool.end();
    const empty = await ralph(['runs', '--database-url', scene.databaseFor('blank')]);
    expect(empty).toMatchObject({ code: 0, stdout: 'no runs, no workers\n', stderr: '' });
    const status = await ralph(['status', 'x', '--database-url', scene.databaseFor('blank')]);
    expect(status).toMatchObject({ code: 1, stderr: 'ralph: there is no fleet run x\n' });
  }, 60_000);

  it('submit and wait warn when no worker is live; a cancelled queued run reads "cancelled, 0 rounds done"', async () => {
    const url = scene.databaseFor('unattended');
    const ws = await scene.workspace();
    const noWorker =
      'no worker is live on this fleet: the run waits in the queue until one starts ' +
      "(ralph worker --agent … on a machine that sees the run's workspace)\n";
    const submitted = await submitRun(url, ws.dir);
    expect(submitted.code).toBe(0);
    const id = submitted.stdout.trim();
    expect(submitted.stderr).toBe(`ralph submit: ${noWorker}`);
    const waiting = spawnRalph(['wait', id, '--database-url', url]);
    scene.processes.push(waiting);
    await waitFor(() => waiting.stderr().includes(noWorker), 'ralph wait to warn');
    expect(waiting.stderr()).toBe(`ralph wait: ${id} queued, 0 rounds done\nralph wait: ${noWorker}`);
    expect((await ralph(['cancel', id, '--database-url', url])).code).toBe(0);
    expect((await waiting.exited).code).toBe(130);
    const status = await ralph(['status', id, '--database-url', url]);
    expect(status.stdout).toBe(`${id} cancelled, 0 rounds done\n`);
    expect(ws.log()).toEqual([]);
  }, 60_000);

  it('a cancelled run: the worker logs its start and its end, and no DBOS warning about its outcome', async () => {
    const url = scene.databaseFor('cancel-quiet');
    const ws = await scene.workspace();
    const worker = await startWorker(url, 'quiet', { env: { FLEET_AGENT_HOLD_ROUND: '1' } });
    scene.processes.push(worker);
    const submitted = await submitRun(url, ws.dir, { extra: ['--grace-ms', '300'] });
    const id = submitted.stdout.trim();
    expect(submitted.stderr).toBe('');
    await waitFor(() => ws.holders(1).length === 1, "round 1's agent");
    await ralph(['cancel', id, '--database-url', url]);
    await waitFor(
      () => worker.stderr().includes(`ralph worker quiet: ${id} cancelled\n`),
      'the worker to log the end',
    );
    expect((await ralph(['wait', id, '--database-url', url])).code).toBe(130);
    await stopWorker(worker);
    expect(worker.stderr()).toContain(`ralph worker quiet: running ${id}\n`);
    expect(worker.stderr()).not.toContain('dbos');
  }, 60_000);
});
