import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it, onTestFinished } from 'vitest';
import { enqueueBatchRows, type FleetBatchSubmission } from '../../src/fleet/batch-client.js';
import { type FleetBatchTask, landingPartition } from '../../src/fleet/batch-input.js';
import { FLEET_APP_VERSION, LANDING_WORKFLOW, MERGE_QUEUE } from '../../src/fleet/constants.js';
import { loadDbos } from '../../src/fleet/sdk.js';
import { createRalphFleet, type RalphFleet } from '../../src/fleet.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import { controlsIn } from '../support/terminal.js';
import { killedAfterTest, type RalphProcess, startWorker, useFleetScene, waitFor } from './harness.js';

// A batch task's row is whatever JSON its writer stored: enqueueBatchRows, submitBatch without its checks, stands for
// anyone who can write to the fleet's database. The worker checks what it reads where it uses it.
const scene = useFleetScene();
const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);

/** A `file://` bare remote with main at one commit, a side folder for the worker's state, and the agents' log. */
function remote() {
  const side = tempFolder('ralph-fleet-rows-');
  const bare = join(side, 'remote.git');
  gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
  const log = join(side, 'agents.log');
  return {
    side,
    bare,
    url: `file://${bare}`,
    stateDir: join(side, 'state'),
    base: gitIn(bare, 'rev-parse', 'main'),
    env: { BATCH_AGENT_LOG: log, TMPDIR: side },
    agentStarts: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
  };
}

type Remote = ReturnType<typeof remote>;

/** A batch id as ralph submit makes them. */
const newBatchId = () => `20261201-1200-${randomBytes(3).toString('hex')}`;

/** A row of a batch task run by the edit agent, as ralph submit --batch writes it, but for `batch`'s fields. */
function row(repo: Remote, batch: Partial<FleetBatchTask> & { objective?: string }) {
  const { objective = 'write a.txt agent', ...fields } = batch;
  const batchId = fields.batchId ?? newBatchId();
  const taskId = fields.taskId ?? 'one';
  return {
    objective,
    agent: { agentCommand: AGENT },
    cwd: tmpdir(),
    batch: {
      batchId,
      taskId,
      repo: repo.url,
      target: 'main',
      branch: `ralph/${batchId}/${taskId}`,
      base: repo.base,
      after: [],
      verify: null,
      verifyTimeoutMs: 60_000,
      ...fields,
    },
  };
}

/** A worker taking batch tasks with the remote's state folder, killed once its test finished. */
async function batchWorker(url: string, id: string, repo: Remote): Promise<RalphProcess> {
  const worker = await startWorker(url, id, {
    env: repo.env,
    extra: ['--allow-batch', '--state-dir', repo.stateDir],
  });
  return killedAfterTest(scene, worker);
}

/** The library's fleet on `url`, closed after the file's tests. */
async function fleetOn(url: string): Promise<RalphFleet> {
  const fleet = await createRalphFleet({ databaseUrl: url });
  scene.fleets.push(fleet);
  return fleet;
}

/** A test's own database (`rows_<name>`), remote, worker (`rows-<name>`, one slot) and library fleet. */
async function rowScene(name: string) {
  const url = scene.databaseFor(`rows_${name}`);
  const repo = remote();
  const worker = await batchWorker(url, `rows-${name}`, repo);
  const fleet = await fleetOn(url);
  const { DBOSClient } = await loadDbos();
  const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: 'ralph-machine' });
  onTestFinished(() => client.destroy());
  /** Writes rows into the database as they are, as someone who can write there would (submitBatch refuses them). */
  const write = (rows: FleetBatchSubmission) => enqueueBatchRows(client, rows);
  return { url, repo, worker, fleet, write };
}

/** What became of a batch task's run: its state, and the task's status and detail. */
async function settled(fleet: RalphFleet, runId: string) {
  const status = await fleet.wait(runId, { pollMs: 100 });
  const batch = (status.outcome as { batch?: { status: string; detail: string } } | undefined)?.batch;
  return { state: status.state, status: batch?.status, detail: batch?.detail };
}

describe('a batch task row: the worker checks every id, URL and path it reads from the database', () => {
  it("a task id walking out of the state folder is refused; the victim's files are kept and nothing is cloned", async () => {
    const { repo, worker, fleet, write } = await rowScene('id');
    const victim = join(repo.side, 'victim', 'important');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'keep.txt'), 'mine\n');
    // worktrees/<batch>/<task> under the state folder: three folders up is the side folder the victim is in.
    const crafted = row(repo, { taskId: '../../../victim/important' });
    crafted.batch.branch = `ralph/${crafted.batch.batchId}/important`;
    const [runId] = await write([crafted]);
    const ended = await settled(fleet, runId as string);
    expect(readFileSync(join(victim, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(ended).toMatchObject({ state: 'refused', status: 'failed' });
    expect(ended.detail).toMatch(
      /^ralph fleet: worker rows-id refuses batch task row .*: its task id "\.\.\/\.\.\/\.\.\/victim\/important" is refused: must be 1-64 of a-z/,
    );
    expect(repo.agentStarts()).toEqual([]);
    expect(existsSync(join(repo.stateDir, 'repos'))).toBe(false);
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(repo.base);
    expect(worker.stderr()).toContain(
      `ralph worker rows-id: ${runId} refused: ralph fleet: worker rows-id refuses`,
    );
  }, 60_000);

  it('a landing row whose task id walks out of the state folder needs review; nothing outside it is touched', async () => {
    const { url, repo } = await rowScene('landing');
    const batchId = newBatchId();
    // merges/<batch>/<task>/.merge under the state folder: the victim's `.merge` folder is three folders up.
    const victim = join(repo.side, 'victim', '.merge');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'keep.txt'), 'mine\n');
    const branch = `ralph/${batchId}/victim`;
    gitIn(repo.bare, 'branch', branch, 'main');
    const task = { ...row(repo, { batchId, taskId: '../../../victim', branch }).batch };
    const { DBOSClient } = await loadDbos();
    const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: 'ralph-machine' });
    onTestFinished(() => client.destroy());
    const handle = await client.enqueue(
      {
        queueName: MERGE_QUEUE,
        workflowName: LANDING_WORKFLOW,
        appVersion: FLEET_APP_VERSION,
        workflowID: `${batchId}.victim.land`,
        queuePartitionKey: landingPartition(task),
      },
      { task, runId: `${batchId}.victim` },
    );
    const result = (await handle.getResult()) as { status: string; detail: string };
    expect(readFileSync(join(victim, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(result.status).toBe('needs-review');
    expect(result.detail).toContain('its task id "../../../victim" is refused');
  }, 60_000);

  it('a row whose branch is not ralph/<batch>/<task> (main) is refused: no agent runs, main is untouched', async () => {
    const { repo, fleet, write } = await rowScene('branch');
    const crafted = row(repo, { branch: 'main' });
    const [runId] = await write([crafted]);
    const ended = await settled(fleet, runId as string);
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(repo.base);
    expect(ended).toMatchObject({ state: 'refused', status: 'failed' });
    expect(ended.detail).toContain(
      `its branch "main" is refused: a task's branch is ralph/${crafted.batch.batchId}/one`,
    );
    expect(repo.agentStarts()).toEqual([]);
  }, 60_000);

  it('rows whose repository URL, target or base could reach git as an option are refused', async () => {
    const { repo, fleet, write } = await rowScene('refs');
    const marker = join(repo.side, 'ext-ran');
    const rows = [
      row(repo, { repo: `ext::sh -c touch% ${marker}` }),
      row(repo, { target: 'main:refs/heads/other' }),
      row(repo, { base: '--detach' }),
    ];
    const ids = await write(rows);
    const ended = await Promise.all(ids.map((id) => settled(fleet, id)));
    expect(ended.map((each) => each.state)).toEqual(['refused', 'refused', 'refused']);
    expect(ended[0]?.detail).toContain('its repository URL "ext::sh -c touch% ');
    expect(ended[1]?.detail).toContain('its target "main:refs/heads/other" is refused: it is no branch name');
    expect(ended[2]?.detail).toContain('its base "--detach" is refused: it is no commit id');
    expect(existsSync(marker)).toBe(false);
    expect(repo.agentStarts()).toEqual([]);
  }, 60_000);

  it("a row whose after names itself, a missing task or a cycle ends refused, saying why, and frees the worker's only slot", async () => {
    const { repo, fleet, write } = await rowScene('after');
    const batchId = newBatchId();
    const [self, orphan, left, right] = await write([
      row(repo, { batchId, taskId: 'self', after: ['self'] }),
      row(repo, { batchId, taskId: 'orphan', after: ['ghost'] }),
      row(repo, { batchId, taskId: 'left', after: ['right'] }),
      row(repo, { batchId, taskId: 'right', after: ['left'] }),
    ]);
    const [fine] = await fleet.submitBatch([row(repo, { taskId: 'fine', objective: 'write f.txt fine' })]);
    // With one slot, a task holding it forever would leave the fine one queued: the deadline fails the test then.
    const ended = await waitFor(
      async () => {
        const all = await Promise.all(
          [self, orphan, left, right, fine].map((id) => fleet.status(id as string)),
        );
        return all.every((one) => one.state !== 'queued' && one.state !== 'running') && all;
      },
      'every task to settle',
      45_000,
    );
    const detail = (index: number) =>
      (ended[index]?.outcome as { batch?: { detail: string } } | undefined)?.batch?.detail;
    expect(ended.map((one) => one.state)).toEqual(['refused', 'refused', 'refused', 'refused', 'complete']);
    expect(detail(0)).toContain('task "self" comes after itself');
    expect(detail(1)).toContain('task "orphan" comes after "ghost", which no task is');
    expect(detail(2)).toContain('tasks come after each other in a cycle: left → right → left');
    expect(gitIn(repo.bare, 'show', 'main:f.txt')).toBe('fine');
  }, 90_000);

  it("the worker's log lines carry no terminal escapes from a row", async () => {
    const { repo, worker, fleet, write } = await rowScene('escapes');
    const [runId] = await write([row(repo, { taskId: 'x\u001b]0;owned\u0007\u009b2J' })]);
    await settled(fleet, runId as string);
    await waitFor(() => /: \S+ (refused|failed): /.test(worker.stderr()), "the worker to log the run's end");
    expect(controlsIn(worker.stderr())).toEqual([]);
    expect(worker.stderr()).toContain('running ');
    expect(worker.stderr()).toContain(']0;owned');
  }, 60_000);

  it('the state folder, its clones and their config are private to the worker (0700, config 0600)', async () => {
    const { repo, fleet } = await rowScene('modes');
    const [runId] = await fleet.submitBatch([row(repo, {})]);
    expect(await settled(fleet, runId as string)).toMatchObject({ state: 'complete', status: 'landed' });
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    const clones = readdirSync(join(repo.stateDir, 'repos'));
    expect(clones).toHaveLength(1);
    const clone = join(repo.stateDir, 'repos', clones[0] as string);
    expect({
      state: mode(repo.stateDir),
      repos: mode(join(repo.stateDir, 'repos')),
      clone: mode(clone),
      config: mode(join(clone, 'config')),
      worktrees: mode(join(repo.stateDir, 'worktrees')),
      merges: mode(join(repo.stateDir, 'merges')),
    }).toEqual({ state: '700', repos: '700', clone: '700', config: '600', worktrees: '700', merges: '700' });
  }, 60_000);
});
