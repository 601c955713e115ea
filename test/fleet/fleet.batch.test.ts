import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';
import {
  databaseFailures,
  isRunning,
  killedAfterTest,
  type RalphProcess,
  ralph,
  spawnRalph,
  startWorker,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);
const WAIT_IN_MERGE = quote([process.execPath, fixture('hold-fleet-merge-check.mjs')]);
const ROUND_AGENT = quote([process.execPath, fixture('round-file-agent.mjs')]);

/** A `file://` bare repository seeded with `files` on main, a tasks file and the fake agents' log beside it. */
function remote(tasks: unknown, files: Record<string, string> = { 'README.md': 'hello\n' }) {
  const seeded = tempRepo(files);
  const side = tempFolder('ralph-fleet-batch-');
  const bare = join(side, 'remote.git');
  gitIn(side, 'clone', '--quiet', '--bare', seeded, bare);
  const tasksFile = join(side, 'tasks.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  const log = join(side, 'agents.log');
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  // The workers' own temp folder: no other ralph process's sweep kills their agents in their place.
  const env = { BATCH_AGENT_LOG: log, TMPDIR: side };
  return { side, bare, url: `file://${bare}`, tasksFile, env, agentLines: lines };
}

type Remote = ReturnType<typeof remote>;

/** A worker taking batch tasks, with a state folder of its own. */
async function worker(url: string, id: string, repo: Remote, extra: string[] = []): Promise<RalphProcess> {
  const started = await startWorker(url, id, {
    env: repo.env,
    extra: ['--allow-batch', '--allow-verify', '--state-dir', join(repo.side, `state-${id}`), ...extra],
  });
  return killedAfterTest(scene, started);
}

/** `ralph submit --batch` onto main (by the edit agent unless `extra` names another); the batch id. */
async function submitBatch(url: string, repo: Remote, ...extra: string[]): Promise<string> {
  const submitted = await ralph([
    'submit',
    '--batch',
    repo.tasksFile,
    '--repo',
    repo.url,
    '--into',
    'main',
    // The edit agent, unless the test names another.
    ...(extra.includes('--agent-command') ? [] : ['--agent-command', AGENT]),
    '--database-url',
    url,
    ...extra,
  ]);
  expect(submitted.code, submitted.stderr).toBe(0);
  return submitted.stdout.trim();
}

/** How many commits of the remote's main carry each task's `Ralph-Task:` trailer. */
function landedCounts(repo: Remote, batchId: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const trailers = gitIn(repo.bare, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', 'main');
  for (const line of trailers.split('\n').filter(Boolean)) {
    const [batch, task] = line.split('/');
    if (batch === batchId) counts[task as string] = (counts[task as string] ?? 0) + 1;
  }
  return counts;
}

describe('ralph submit --batch: a batch on the fleet, landing on a file:// remote', () => {
  it('tasks on different files all land on the remote target, each exactly once, the one coming after on top', async () => {
    const url = scene.databaseFor('batch_lands');
    const repo = remote([
      { id: 'second', objective: 'write b.txt from second', after: ['first'] },
      { id: 'first', objective: 'commit a.txt from first' },
      { id: 'other', objective: 'write c.txt from other' },
    ]);
    await worker(url, 'one', repo, ['--concurrency', '2']);
    await worker(url, 'two', repo);
    const batchId = await submitBatch(url, repo);
    expect(batchId).toMatch(/^\d{8}-\d{4}-[0-9a-f]{6}$/);

    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^first: landed: main at [0-9a-f]{40}$/m);
    expect(waited.stdout).toMatch(/^second: landed: /m);
    expect(waited.stdout).toMatch(/^other: landed: /m);
    expect(gitIn(repo.bare, 'show', 'main:a.txt')).toBe('from first');
    expect(gitIn(repo.bare, 'show', 'main:b.txt')).toBe('from second');
    expect(gitIn(repo.bare, 'show', 'main:c.txt')).toBe('from other');
    expect(gitIn(repo.bare, 'show', 'main:README.md')).toBe('hello');
    expect(landedCounts(repo, batchId)).toEqual({ first: 1, second: 1, other: 1 });
    // second started from main as first left it: first's commit is below its own.
    // Each commit the batch made is named by its task's objective, its batch, task, round and run below.
    const commits = gitIn(repo.bare, 'log', '--format=%s%x09%b%x00', 'main')
      .split('\0')
      .map((text) => text.trim().split('\n')[0] ?? '');
    const secondRound1 = commits.indexOf(
      `write b.txt from second\tralph batch ${batchId}: task second, round 1 (run ${batchId}.second): what the task's agents left uncommitted in its worktree, if anything.`,
    );
    expect(secondRound1).toBeGreaterThanOrEqual(0);
    expect(commits.indexOf('agent: a.txt')).toBeGreaterThan(secondRound1);
    // Each task's branch is on the remote.
    for (const task of ['first', 'second', 'other'])
      expect(gitIn(repo.bare, 'rev-parse', '--verify', `ralph/${batchId}/${task}`)).toMatch(/^[0-9a-f]{40}$/);
    const status = await ralph(['status', batchId, '--database-url', url]);
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(waited.stdout);
    // The workers' state folders keep their clones, and no empty folder of the batch's worktrees or merges.
    for (const id of ['one', 'two'])
      for (const kept of ['worktrees', 'merges']) {
        const folder = join(repo.side, `state-${id}`, kept);
        expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);
      }
  }, 90_000);

  it("two workers and the submit started in one go on the server's `postgres` database: both workers start, and every task lands once", async () => {
    // The server's own maintenance database, where the set-up lock is taken too: nothing set it up yet.
    const url = scene.databaseFor('postgres');
    const repo = remote([
      { id: 'first', objective: 'write a.txt from first' },
      { id: 'other', objective: 'write c.txt from other' },
    ]);
    const workers = ['one', 'two'].map((id) =>
      killedAfterTest(
        scene,
        spawnRalph(
          [
            ...['worker', '--database-url', url, '--worker-id', id, '--allow-agent-command'],
            ...['--allow-batch', '--allow-verify', '--state-dir', join(repo.side, `state-${id}`)],
          ],
          repo.env,
        ),
      ),
    );
    const batchId = await submitBatch(url, repo);
    for (const started of workers) {
      await waitFor(
        () => started.stderr().includes('taking runs') || started.child.exitCode !== null,
        'both workers to take runs',
      );
      expect(started.child.exitCode, started.stderr()).toBe(null);
      expect(databaseFailures(started), started.stderr()).toEqual([]);
    }
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(landedCounts(repo, batchId)).toEqual({ first: 1, other: 1 });
  }, 90_000);

  it('two tasks editing the same lines: one lands, the other needs review naming the file, the remote target untouched by it', async () => {
    const url = scene.databaseFor('batch_conflict');
    const repo = remote(
      [
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
      ],
      { 'shared.txt': 'base\n' },
    );
    await worker(url, 'solo', repo, ['--concurrency', '2']);
    const batchId = await submitBatch(url, repo);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(1);
    const landed = /^(left|right): landed: /m.exec(waited.stdout)?.[1] as string;
    const other = landed === 'left' ? 'right' : 'left';
    expect(waited.stdout).toMatch(new RegExp(`^${other}: needs-review: conflict in shared.txt$`, 'm'));
    expect(waited.stdout).toContain('  conflicting files: shared.txt');
    expect(gitIn(repo.bare, 'show', 'main:shared.txt')).toBe(landed);
    expect(landedCounts(repo, batchId)).toEqual({ [landed]: 1 });
    // The task that needs review keeps its branch on the remote, with its own edit.
    expect(gitIn(repo.bare, 'show', `ralph/${batchId}/${other}:shared.txt`)).toBe(other);
  }, 90_000);

  it('--resolve-conflicts: the conflict goes to a resolver loop on the landing worker, and the merge keeping both sides lands once verified', async () => {
    const url = scene.databaseFor('batch_resolve');
    const repo = remote(
      [
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
      ],
      { 'shared.txt': 'base\n' },
    );
    await worker(url, 'resolver', repo, ['--concurrency', '2']);
    const verify = quote([process.execPath, '--version']);
    const batchId = await submitBatch(url, repo, '--resolve-conflicts', '--verify', verify);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^left: landed: main at [0-9a-f]{40}$/m);
    expect(waited.stdout).toMatch(/^right: landed: main at [0-9a-f]{40}$/m);
    // The fake agent, asked to resolve, keeps both sides: both words are on main, no marker.
    expect(gitIn(repo.bare, 'show', 'main:shared.txt').split('\n').sort()).toEqual(['left', 'right']);
    expect(landedCounts(repo, batchId)).toEqual({ left: 1, right: 1 });
    const merged = gitIn(repo.bare, 'log', '-1', '--format=%s', 'main');
    expect(merged).toMatch(
      new RegExp(`^ralph batch ${batchId}: task (left|right) onto main, conflicts resolved \\(run \\S+\\)$`),
    );
    // Two task agents and one resolver's.
    expect(repo.agentLines().filter((line) => line.startsWith('start'))).toHaveLength(3);
  }, 90_000);

  it('a landing waits its turn behind the one landing on its target: ralph status says which, and both land, one at a time', async () => {
    const url = scene.databaseFor('batch_landing_turn');
    const repo = remote([
      { id: 'first', objective: 'write f.txt first' },
      { id: 'later', objective: 'write l.txt later' },
    ]);
    const pids = join(repo.side, 'verify.pids');
    const go = join(repo.side, 'go');
    Object.assign(repo.env, { BATCH_VERIFY_PID: pids, BATCH_VERIFY_GO: go });
    await worker(url, 'lander', repo, ['--concurrency', '2']);
    const batchId = await submitBatch(url, repo, '--verify', WAIT_IN_MERGE);
    await waitFor(() => existsSync(pids), 'a merge to verify');
    const status = await waitFor(async () => {
      const now = await ralph(['status', batchId, '--database-url', url]);
      return now.stdout.includes('waiting its turn') && now.stdout;
    }, 'a landing to wait its turn');
    expect(status.split('\n').filter(Boolean).sort()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^(first|later): landing on main \(by lander\)$/),
        expect.stringMatching(/^(first|later): landing on main \(waiting its turn in the merge queue\)$/),
      ]),
    );
    // One merge at a time: only the landing under way has started its verify command.
    expect(readFileSync(pids, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    writeFileSync(go, '');
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(landedCounts(repo, batchId)).toEqual({ first: 1, later: 1 });
  }, 90_000);

  it('two batches landing on two targets of one repository merge at once, each target one landing at a time', async () => {
    const url = scene.databaseFor('batch_two_targets');
    const repo = remote([{ id: 'one', objective: 'write one.txt one' }]);
    gitIn(repo.bare, 'branch', 'dev', 'main');
    const pids = join(repo.side, 'verify.pids');
    const go = join(repo.side, 'go');
    Object.assign(repo.env, { BATCH_VERIFY_PID: pids, BATCH_VERIFY_GO: go });
    await worker(url, 'both', repo, ['--concurrency', '2']);
    const onMain = await submitBatch(url, repo, '--verify', WAIT_IN_MERGE);
    const onDev = await submitBatch(url, repo, '--verify', WAIT_IN_MERGE, '--into', 'dev');
    // Both merges verify at the same time: each waits for the go, so neither could finish first.
    await waitFor(
      () => existsSync(pids) && readFileSync(pids, 'utf8').split('\n').filter(Boolean).length === 2,
      'both merges to verify at once',
    );
    writeFileSync(go, '');
    for (const batchId of [onMain, onDev]) {
      const waited = await ralph(['wait', batchId, '--database-url', url]);
      expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    }
    expect(gitIn(repo.bare, 'show', 'main:one.txt')).toBe('one');
    expect(gitIn(repo.bare, 'show', 'dev:one.txt')).toBe('one');
    expect(landedCounts(repo, onMain)).toEqual({ one: 1 });
  }, 90_000);

  it('a worker SIGKILLed in the middle of a task: a live worker takes it over from its last pushed round, and it lands once', async () => {
    const url = scene.databaseFor('batch_task_kill');
    const repo = remote([{ id: 'slow', objective: 'Write a file a round' }]);
    const hold = join(repo.side, 'hold');
    writeFileSync(hold, '');
    Object.assign(repo.env, { FIXTURE_COMPLETE_AT: '2', BATCH_HOLD_ROUND: '2', BATCH_HOLD: hold });
    const victim = await worker(url, 'victim', repo);
    const batchId = await submitBatch(url, repo, '--agent-command', ROUND_AGENT);
    const starts = () => repo.agentLines().map((line) => line.split(' '));
    const [, , orphan] = await waitFor(() => starts().find(([, round]) => round === '2'), "round 2's agent");
    victim.child.kill('SIGKILL');
    await victim.exited;
    await waitFor(() => !isRunning(Number(orphan)), "the dead worker's agent to be reaped");
    // The agent that runs round 2 again on the heir holds no more.
    rmSync(hold);
    const heir = await worker(url, 'heir', repo);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(heir.stderr()).toMatch(/took over 1 run\(s\) of worker victim/);
    // Round 1 ran once, on the victim; round 2 again on the heir, in a worktree holding round 1's pushed work.
    expect(starts().map(([, round, , files]) => `${round}: ${files}`)).toEqual([
      '1: README.md',
      '2: README.md,round-1.txt',
      '2: README.md,round-1.txt',
    ]);
    expect(gitIn(repo.bare, 'show', 'main:round-1.txt')).toBe('round 1');
    expect(gitIn(repo.bare, 'show', 'main:round-2.txt')).toBe('round 2');
    expect(landedCounts(repo, batchId)).toEqual({ slow: 2 });
    expect(
      gitIn(repo.bare, 'log', '--format=%s%x09%b', '-2', 'main')
        .split('\n')
        .filter((l) => l.includes('\t')),
    ).toEqual([
      `Write a file a round\tralph batch ${batchId}: task slow, round 2 (run ${batchId}.slow): what the task's agents left uncommitted in its worktree, if anything.`,
      `Write a file a round\tralph batch ${batchId}: task slow, round 1 (run ${batchId}.slow): what the task's agents left uncommitted in its worktree, if anything.`,
    ]);
  }, 90_000);

  it('a worker SIGKILLed in the middle of a merge: a live worker takes the landing over and it lands exactly once', async () => {
    const url = scene.databaseFor('batch_merge_kill');
    const repo = remote([{ id: 'merged', objective: 'write m.txt merged' }]);
    const pids = join(repo.side, 'verify.pids');
    const go = join(repo.side, 'go');
    Object.assign(repo.env, { BATCH_VERIFY_PID: pids, BATCH_VERIFY_GO: go });
    const victim = await worker(url, 'merger', repo);
    const batchId = await submitBatch(url, repo, '--verify', WAIT_IN_MERGE);
    const verifyPid = await waitFor(
      () => existsSync(pids) && Number(readFileSync(pids, 'utf8').split('\n')[0]),
      'the merge to verify',
    );
    // In the merge queue, the task says so, and who lands it.
    const landing = await ralph(['status', batchId, '--database-url', url]);
    expect(landing.stdout).toBe('merged: landing on main (by merger)\n');
    victim.child.kill('SIGKILL');
    await victim.exited;
    // Its verify command does not outlive it: its reaper kills it, as it kills its agents.
    await waitFor(() => !isRunning(verifyPid), "the dead worker's verify command to be killed by its reaper");
    const heir = await worker(url, 'heir', repo);
    writeFileSync(go, '');
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/^merged: landed: /m);
    expect(heir.stderr()).toMatch(/took over 2 run\(s\) of worker merger/);
    expect(gitIn(repo.bare, 'show', 'main:m.txt')).toBe('merged');
    expect(landedCounts(repo, batchId)).toEqual({ merged: 1 });
    // The task's agent ran once: the landing alone was done again, its verify command on the heir.
    expect(repo.agentLines().filter((l) => l.startsWith('start'))).toHaveLength(1);
    expect(readFileSync(pids, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  }, 90_000);

  it('a worker SIGKILLed after its landing pushed the target but before the step was recorded: the heir finds it landed, and it lands once', async () => {
    const url = scene.databaseFor('batch_push_kill');
    const repo = remote([{ id: 'pushed', objective: 'write p.txt pushed' }]);
    const pause = join(repo.side, 'landed');
    const victim = killedAfterTest(
      scene,
      await startWorker(url, 'pusher', {
        env: { ...repo.env, RALPH_TEST_PAUSE_AFTER_LAND: pause },
        extra: ['--allow-batch', '--allow-verify', '--state-dir', join(repo.side, 'state-pusher')],
      }),
    );
    const batchId = await submitBatch(url, repo);
    await waitFor(() => existsSync(pause), 'the landing to push the target');
    const landed = gitIn(repo.bare, 'rev-parse', 'main');
    expect(landedCounts(repo, batchId)).toEqual({ pushed: 1 });
    victim.child.kill('SIGKILL');
    await victim.exited;
    await worker(url, 'heir', repo);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(waited.stdout).toBe(`pushed: landed: already on main at ${landed}\n`);
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(landed);
    expect(landedCounts(repo, batchId)).toEqual({ pushed: 1 });
  }, 90_000);

  it('ralph cancel of a task skips the tasks after it; ralph cancel <batch-id> cancels every task not settled', async () => {
    const url = scene.databaseFor('batch_cancel');
    const repo = remote([]);
    const hold = join(repo.side, 'hold');
    writeFileSync(hold, '');
    writeFileSync(
      repo.tasksFile,
      JSON.stringify([
        { id: 'held', objective: `write h.txt held\nhang-while ${hold}` },
        { id: 'next', objective: 'write n.txt next', after: ['held'] },
        { id: 'other', objective: `write o.txt other\nhang-while ${hold}` },
      ]),
    );
    await worker(url, 'holder', repo, ['--concurrency', '3']);
    const batchId = await submitBatch(url, repo);
    const agents = await waitFor(
      () => repo.agentLines().length === 2 && repo.agentLines().map((line) => Number(line.split(' ')[1])),
      'the agents of held and other',
    );
    const one = await ralph(['cancel', `${batchId}.held`, '--database-url', url]);
    expect(one.code).toBe(0);
    const skipped = await ralph(['wait', `${batchId}.next`, '--database-url', url]);
    expect(skipped.code).toBe(130);
    const all = await ralph(['cancel', batchId, '--database-url', url]);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe(`ralph: cancelled batch ${batchId} (1 task run(s) not settled yet)\n`);
    await waitFor(() => agents.every((pid) => !isRunning(pid)), 'the agents to be stopped');
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code).toBe(1);
    expect(waited.stdout).toBe(
      [
        `held: ${batchId}.held cancelled on holder, 0 rounds done`,
        'next: skipped: held, which it comes after, did not land',
        `other: ${batchId}.other cancelled on holder, 0 rounds done`,
        '',
      ].join('\n'),
    );
    expect(landedCounts(repo, batchId)).toEqual({});
  }, 60_000);

  it('a worker started without --allow-batch clones nothing: the task settles refused, saying how to allow it', async () => {
    const url = scene.databaseFor('batch_not_allowed');
    const repo = remote([{ id: 'nope', objective: 'write n.txt nope' }]);
    killedAfterTest(
      scene,
      await startWorker(url, 'plain', { env: repo.env, extra: ['--state-dir', join(repo.side, 'plain')] }),
    );
    const batchId = await submitBatch(url, repo);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code).toBe(1);
    expect(waited.stdout).toMatch(
      /^nope: failed: ralph fleet: worker plain does not take batch tasks \(start it with --allow-batch/m,
    );
    expect(repo.agentLines()).toEqual([]);
    expect(existsSync(join(repo.side, 'plain'))).toBe(false);
    expect(gitIn(repo.bare, 'branch', '--list', 'ralph/*')).toBe('');
  }, 60_000);

  it('ralph batch --rollback <id> --repo moves the remote target back to the tagged start, refusing while someone else pushed on top', async () => {
    const url = scene.databaseFor('batch_rollback');
    const repo = remote([{ id: 'one', objective: 'write o.txt one' }]);
    const start = gitIn(repo.bare, 'rev-parse', 'main');
    await worker(url, 'lander', repo);
    const batchId = await submitBatch(url, repo);
    const tag = `ralph/batch-${batchId}/start`;
    expect(gitIn(repo.bare, 'rev-parse', `${tag}^{commit}`)).toBe(start);
    expect(gitIn(repo.bare, 'tag', '-l', '--format=%(contents)', tag)).toBe(
      `ralph batch ${batchId}\ntarget main`,
    );
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    const landed = gitIn(repo.bare, 'rev-parse', 'main');
    // Someone else pushes on top of the batch's last landing: a rollback would drop their commit, so it is refused.
    const outsider = tempFolder('ralph-fleet-outsider-');
    gitIn(outsider, 'clone', '--quiet', repo.url, 'work');
    writeFileSync(join(outsider, 'work', 'theirs.txt'), 'theirs\n');
    gitIn(join(outsider, 'work'), 'add', 'theirs.txt');
    gitIn(
      join(outsider, 'work'),
      '-c',
      'user.name=o',
      '-c',
      'user.email=o@x',
      'commit',
      '--quiet',
      '-m',
      'theirs',
    );
    gitIn(join(outsider, 'work'), 'push', '--quiet', 'origin', 'main');
    const theirs = gitIn(repo.bare, 'rev-parse', 'main');
    const refused = await ralph(['batch', '--rollback', batchId, '--repo', repo.url]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`main on ${repo.url} moved since batch ${batchId}'s last landing`);
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(theirs);
    // With their commit gone again, the target goes back to where the batch started.
    gitIn(repo.bare, 'update-ref', 'refs/heads/main', landed);
    const back = await ralph(['batch', '--rollback', batchId, '--repo', repo.url]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(`main rolled back from ${landed.slice(0, 12)} to ${start.slice(0, 12)}\n`);
    expect(gitIn(repo.bare, 'rev-parse', 'main')).toBe(start);
    // The landed work stays on the task's branch.
    expect(gitIn(repo.bare, 'show', `ralph/${batchId}/one:o.txt`)).toBe('one');
    const again = await ralph(['batch', '--rollback', batchId, '--repo', repo.url]);
    expect(again.stdout).toBe(
      `main is already at batch ${batchId}'s start commit ${start.slice(0, 12)}: nothing to roll back\n`,
    );
    const unknown = await ralph(['batch', '--rollback', 'nope', '--repo', repo.url]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`there is no batch nope on ${repo.url} (no tag ralph/batch-nope/start)`);
  }, 90_000);

  it("the batch's --max-cost holds for the whole batch: once its tasks' summed cost reaches it the rest is cancelled, ralph wait exits 4, nothing half-landed", async () => {
    const url = scene.databaseFor('batch_max_cost');
    const tasks = Array.from({ length: 4 }, (_, n) => ({
      id: `t${n}`,
      objective: `write f${n}.txt ${n}\ncost 0.25`,
    }));
    const repo = remote(tasks);
    await worker(url, 'spender', repo, ['--concurrency', '1']);
    const batchId = await submitBatch(url, repo, '--agent-reports-cost', '--max-cost', '0.6');
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(4);
    expect(waited.stderr).toContain(`ralph: batch ${batchId}: the batch's --max-cost was reached ($0.75)`);
    // $0.25 a task, one at a time: the third loop's end passes $0.60, and the fourth never starts.
    expect(repo.agentLines().filter((line) => line.startsWith('start'))).toHaveLength(3);
    const lines = waited.stdout.split('\n').filter(Boolean);
    expect(lines.filter((line) => / landed: main at /.test(line))).toHaveLength(3);
    expect(
      lines.filter((line) =>
        new RegExp(`: ${batchId}\\.t\\d cancelled(?: on spender)?, 0 rounds done$`).test(line),
      ),
    ).toHaveLength(1);
    // What landed landed whole, once each; the cancelled task left nothing on the target.
    const counts = landedCounts(repo, batchId);
    expect(Object.values(counts)).toEqual([1, 1, 1]);
    const files = gitIn(repo.bare, 'ls-tree', '--name-only', 'main').split('\n');
    expect(files.filter((f) => /^f\d\.txt$/.test(f)).sort()).toEqual(
      Object.keys(counts)
        .map((id) => `f${id.slice(1)}.txt`)
        .sort(),
    );
  }, 90_000);

  it("the batch's --max-time holds for the whole batch from its submit: its running loop ends then, the rest never starts, ralph wait exits 4", async () => {
    const url = scene.databaseFor('batch_max_time');
    const repo = remote(
      Array.from({ length: 3 }, (_, n) => ({ id: `h${n}`, objective: `write f${n}.txt ${n}\nhang` })),
    );
    await worker(url, 'timer', repo, ['--concurrency', '1']);
    const batchId = await submitBatch(url, repo, '--max-time', '3s');
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(4);
    expect(waited.stderr).toContain(`ralph: batch ${batchId}: the batch's --max-time ran out`);
    // Each run's own --max-time of 3s would have let all three start, one after another.
    const starts = repo.agentLines().filter((line) => line.startsWith('start'));
    expect(starts.length).toBeLessThanOrEqual(1);
    for (const line of starts)
      await waitFor(() => !isRunning(Number(line.split(' ')[1])), 'the agent to be stopped');
    for (const n of [0, 1, 2])
      expect(waited.stdout).toMatch(
        new RegExp(
          `^h${n}: (failed: |skipped: the batch's --max-time ran out$|${batchId}\\.h${n} cancelled(?: on timer)?, 0 rounds done$)`,
          'm',
        ),
      );
    expect(landedCounts(repo, batchId)).toEqual({});
    expect(gitIn(repo.bare, 'ls-tree', '--name-only', 'main')).toBe('README.md');
  }, 90_000);

  it('a batch whose --max-time ran out before a worker took its tasks starts none: each is skipped, saying why', async () => {
    const url = scene.databaseFor('batch_time_gone');
    const repo = remote([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: 'write b.txt b', after: ['a'] },
    ]);
    const submitted = Date.now();
    const batchId = await submitBatch(url, repo, '--max-time', '1s');
    // The batch's clock runs from its submit, with no worker yet.
    await waitFor(() => Date.now() > submitted + 1_500, "the batch's time to run out");
    await worker(url, 'late', repo);
    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code, waited.stdout + waited.stderr).toBe(4);
    expect(waited.stdout).toMatch(/^a: skipped: the batch's --max-time ran out$/m);
    expect(waited.stdout).toMatch(
      /^b: skipped: (the batch's --max-time ran out|a, which it comes after, did not land)$/m,
    );
    expect(repo.agentLines()).toEqual([]);
    expect(gitIn(repo.bare, 'branch', '--list', 'ralph/*')).toBe('');
  }, 60_000);

  it('refuses, exit 2, before the database is asked: a repository URL of another transport, a bad tasks file, an objective beside --batch', async () => {
    const repo = remote([{ id: 'one', objective: 'write o.txt one' }]);
    const marker = join(repo.side, 'ext-ran');
    const unreachable = 'postgres://nobody@127.0.0.1:1/none';
    const submit = (...args: string[]) =>
      ralph(['submit', ...args, '--agent-command', AGENT, '--database-url', unreachable]);
    const ext = await submit('--batch', repo.tasksFile, '--repo', `ext::sh -c touch% ${marker}`);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toContain('is refused: it must be a file://, https://, ssh:// or user@host:path URL');
    expect(existsSync(marker)).toBe(false);
    const option = await submit(
      '--batch',
      repo.tasksFile,
      '--repo',
      `ssh://-oProxyCommand=touch% ${marker}/x`,
    );
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('is refused: it must be a file://');
    writeFileSync(repo.tasksFile, JSON.stringify([{ id: 'a', objective: 'x', after: ['ghost'] }]));
    const bad = await submit('--batch', repo.tasksFile, '--repo', repo.url);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`the tasks file ${repo.tasksFile} is refused: task "a" comes after "ghost"`);
    const both = await submit('an objective', '--batch', repo.tasksFile, '--repo', repo.url);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('ralph submit --batch takes its objectives from the tasks file');
    const unverified = await submit('--batch', repo.tasksFile, '--repo', repo.url, '--resolve-conflicts');
    expect(unverified.code).toBe(2);
    expect(unverified.stderr).toContain('--resolve-conflicts needs --verify');
    const noRepo = await submit('--batch', repo.tasksFile);
    expect(noRepo.code).toBe(2);
    expect(noRepo.stderr).toContain('ralph submit --batch needs --repo <git url>');
  }, 30_000);
});
