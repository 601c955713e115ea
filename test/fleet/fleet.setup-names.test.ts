import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { tempFolder } from '../support/git-repo.js';
import { databaseFailures, ralph, spawnRalph, stopWorker, useFleetScene, waitFor } from './harness.js';

const scene = useFleetScene();
const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));
const WORKERS = 3;

/**
 * Starts three `ralph worker --agent example` and one `ralph submit` in one go on `url`, as a user starting a fleet
 * would (default worker ids, the demo workspace's checklist), and checks that all four start and the run completes.
 */
async function startFleetAtOnce(url: string): Promise<void> {
  const side = tempFolder('ralph-fleet-names-');
  const workspace = join(side, 'workspace');
  cpSync(DEMO_WORKSPACE, workspace, { recursive: true });
  // The workers' own temp folder: no other ralph process's sweep kills their agents in their place.
  const env = { TMPDIR: side };
  const workers = Array.from({ length: WORKERS }, () =>
    // The example agent runs the commands TASKS.md names: a worker offers it only with --allow-agent-command.
    spawnRalph(['worker', '--database-url', url, '--agent', 'example', '--allow-agent-command'], env),
  );
  const submit = spawnRalph([
    'submit',
    'Tick every box in TASKS.md',
    '--agent',
    'example',
    '--cwd',
    workspace,
    '--database-url',
    url,
  ]);
  scene.processes.push(...workers, submit);
  try {
    const submitted = await submit.exited;
    expect({ ...submitted, stderr: databaseFailures(submit) }, submit.stderr()).toEqual({
      code: 0,
      signal: null,
      stderr: [],
    });
    for (const worker of workers) {
      await waitFor(
        () => worker.stderr().includes('taking runs') || worker.child.exitCode !== null,
        'every worker to take runs',
      );
      expect(databaseFailures(worker), worker.stderr()).toEqual([]);
      expect(worker.child.exitCode, worker.stderr()).toBe(null);
    }
    const id = submit.stdout().trim();
    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ runId: id, result: { status: 'complete' } });
  } finally {
    for (const worker of workers) await stopWorker(worker);
  }
  for (const worker of workers) expect(databaseFailures(worker), worker.stderr()).toEqual([]);
}

describe('a fleet started all at once, whatever its database is called', () => {
  it("the server's own `postgres` database: 3 workers and a submit all start, and the run completes", async () => {
    await startFleetAtOnce(scene.databaseFor('postgres'));
  }, 120_000);

  it('a database that does not exist yet: created once, and the same holds', async () => {
    await startFleetAtOnce(scene.databaseFor('fleet_new'));
  }, 120_000);

  it('an existing empty database: the same holds', async () => {
    const admin = createPgPool({ connectionString: scene.databaseFor('postgres'), max: 1 });
    try {
      await admin.query('CREATE DATABASE fleet_empty');
    } finally {
      await admin.end();
    }
    await startFleetAtOnce(scene.databaseFor('fleet_empty'));
  }, 120_000);
});
