import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { openTaskWorktree, saveTaskBranch } from '../../src/fleet/batch-clone.js';
import type { FleetBatchTask } from '../../src/fleet/batch-input.js';
import { landTask } from '../../src/fleet/batch-landing.js';
import { commitFiles, gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));

/** A `file://` bare remote seeded with one commit on main, a worker's state folder, and a task landing on main. */
function scene(taskId = 'self') {
  const side = tempFolder('ralph-landing-');
  const bare = join(side, 'remote.git');
  gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
  const task: FleetBatchTask = {
    batchId: '20261201-1200-abcdef',
    taskId,
    repo: `file://${bare}`,
    target: 'main',
    branch: `ralph/20261201-1200-abcdef/${taskId}`,
    base: gitIn(bare, 'rev-parse', 'main'),
    after: [],
    verify: null,
    verifyTimeoutMs: 60_000,
  };
  return { bare, task, folders: { stateDir: join(side, 'state') } };
}

/** The trailer values of the remote's main, one a commit that carries one. */
const trailers = (bare: string): string[] =>
  gitIn(bare, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', 'main').split('\n').filter(Boolean);

describe('a fleet landing', () => {
  it('run again after it pushed (a crash before its step was recorded), finds the task on the target and lands nothing twice', async () => {
    const { bare, task, folders } = scene();
    const worktree = await openTaskWorktree(folders, task, task.base);
    // The agent committed its work itself: the task's own commit, with the trailer, is empty.
    writeFileSync(join(worktree, 'a.txt'), 'a\n');
    gitIn(worktree, 'add', 'a.txt');
    gitIn(worktree, 'commit', '--quiet', '-m', 'agent: a.txt');
    const commit = { objective: 'write a.txt', runId: `${task.batchId}.${task.taskId}` };
    const head = await saveTaskBranch(folders, task, commit, { final: true });
    // The final commit made again (its step re-run after a crash) is the same commit, not a second one.
    expect(await saveTaskBranch(folders, task, commit, { final: true })).toBe(head);

    const signal = new AbortController().signal;
    const first = await landTask(folders, task, signal);
    expect(first).toMatchObject({
      status: 'landed',
      detail: expect.stringMatching(/^main at [0-9a-f]{40}$/),
    });
    const again = await landTask(folders, task, signal);
    expect(again).toMatchObject({ status: 'landed', detail: expect.stringMatching(/^already on main at /) });
    expect(trailers(bare)).toEqual([`${task.batchId}/${task.taskId}`]);
    expect(gitIn(bare, 'show', 'main:a.txt')).toBe('a');
  });

  it('a verify command failing on the combined tree needs review with the end of its output, the target untouched', async () => {
    const { bare, task, folders } = scene('ex');
    const check = quote([process.execPath, fixture('both-files-check.mjs')]);
    const why = { ...task, taskId: 'why', branch: task.branch.replace(/ex$/, 'why'), verify: check };
    for (const [each, file] of [
      [{ ...task, verify: check }, 'x.txt'],
      [why, 'y.txt'],
    ] as const) {
      writeFileSync(join(await openTaskWorktree(folders, each, each.base), file), `${file}\n`);
      await saveTaskBranch(folders, each, { objective: each.taskId, runId: null }, { final: true });
    }
    const signal = new AbortController().signal;
    expect(await landTask(folders, { ...task, verify: check }, signal)).toMatchObject({ status: 'landed' });
    const landedAt = gitIn(bare, 'rev-parse', 'main');
    const failed = await landTask(folders, why, signal);
    expect(failed.status).toBe('needs-review');
    expect(failed.detail).toMatch(
      /^verify failed on the combined tree \(exit 1\)\n.*FAIL: x.txt and y.txt do not go together/s,
    );
    expect(gitIn(bare, 'rev-parse', 'main')).toBe(landedAt);
    expect(gitIn(bare, 'show', `${why.branch}:y.txt`)).toBe('y.txt');
  });

  it('a target moved on the remote after the rebase needs review, and the target is left where it was', async () => {
    const { bare, task, folders } = scene('late');
    const worktree = await openTaskWorktree(folders, task, task.base);
    writeFileSync(join(worktree, 'b.txt'), 'b\n');
    await saveTaskBranch(folders, task, { objective: 'late', runId: null }, { final: true });
    // Someone pushes to main while the merge's verify command runs.
    const pusher = join(tempFolder('ralph-pusher-'), 'clone');
    gitIn(bare, 'clone', '--quiet', `file://${bare}`, pusher);
    const verify = `sh -c 'git -C ${pusher} -c user.name=t -c user.email=t@l commit --quiet --allow-empty -m moved && git -C ${pusher} push --quiet origin HEAD:main'`;
    const moved = await landTask(folders, { ...task, verify }, new AbortController().signal);
    expect(moved).toMatchObject({
      status: 'needs-review',
      detail: expect.stringContaining('main moved on the remote'),
    });
    expect(gitIn(bare, 'log', '--format=%s', '-1', 'main')).toBe('moved');
    expect(trailers(bare)).toEqual([]);
  });
  it('pushes the head ralph rebased, not what the verify command left checked out (a reset to the root commit loses nothing)', async () => {
    const { bare, task, folders } = scene('reset');
    const root = task.base;
    // main moves on by two commits after the batch started.
    const other = join(tempFolder('ralph-other-'), 'clone');
    gitIn(bare, 'clone', '--quiet', `file://${bare}`, other);
    commitFiles(other, { 'one.txt': 'one\n' }, 'one');
    commitFiles(other, { 'two.txt': 'two\n' }, 'two');
    gitIn(other, 'push', '--quiet', 'origin', 'HEAD:main');
    const before = gitIn(bare, 'rev-parse', 'main');
    writeFileSync(join(await openTaskWorktree(folders, task, task.base), 'r.txt'), 'r\n');
    await saveTaskBranch(folders, task, { objective: 'reset', runId: null }, { final: true });
    const verify = `git reset --quiet --hard ${root}`;
    const landed = await landTask(folders, { ...task, verify }, new AbortController().signal);
    expect(landed).toMatchObject({
      status: 'landed',
      detail: expect.stringMatching(/^main at [0-9a-f]{40}$/),
    });
    const head = gitIn(bare, 'rev-parse', 'main');
    expect(landed.detail).toBe(`main at ${head}`);
    expect(gitIn(bare, 'merge-base', '--is-ancestor', before, head)).toBe('');
    expect(gitIn(bare, 'show', 'main:r.txt')).toBe('r');
    expect(trailers(bare)).toEqual([`${task.batchId}/${task.taskId}`]);
  });

  it("a merge that does not have the target's head below it (a resolver that started over) needs review, the target untouched", async () => {
    const { bare, task, folders } = scene('over');
    const other = join(tempFolder('ralph-other-'), 'clone');
    gitIn(bare, 'clone', '--quiet', `file://${bare}`, other);
    commitFiles(other, { 'README.md': 'theirs\n' }, 'theirs');
    gitIn(other, 'push', '--quiet', 'origin', 'HEAD:main');
    const before = gitIn(bare, 'rev-parse', 'main');
    writeFileSync(join(await openTaskWorktree(folders, task, task.base), 'README.md'), 'ours\n');
    await saveTaskBranch(folders, task, { objective: 'over', runId: null }, { final: true });
    // The conflict's "resolution": a commit on the batch's start, without main's commit.
    const resolve = async ({ scratch }: { scratch: string }) => {
      gitIn(scratch, 'checkout', '--quiet', '--detach', task.base);
      return { kind: 'resolved' as const, head: commitFiles(scratch, { 'README.md': 'ours\n' }, 'over') };
    };
    const result = await landTask(folders, task, new AbortController().signal, resolve);
    expect(result.status).toBe('needs-review');
    expect(result.detail).toBe(
      `the merge to land does not have main's head ${before} below it: it would drop commits of main, so it was left as it is`,
    );
    expect(gitIn(bare, 'rev-parse', 'main')).toBe(before);
  });
});
