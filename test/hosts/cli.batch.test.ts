import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { isGone, ralph, spawnRalph, waitUntil, waitUntilGone } from '../fixtures/cli-agents/harness.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);
const BOTH_FILES_CHECK = quote([process.execPath, fixture('both-files-check.mjs')]);
const WAIT_IN_MERGE_CHECK = quote([process.execPath, fixture('wait-in-merge-check.mjs')]);
const LOGGED_CHECK = quote([process.execPath, fixture('logged-check.mjs')]);

/** A repository with a tasks file beside it (outside the repository), and a log the fake agents write to. */
const setup = (tasks: unknown, files?: Record<string, string>) => batchScene(tasks, files);

/** Two tasks, left and right, that write the same file differently: whichever merges second conflicts. */
const setupConflictingPair = () =>
  setup(
    [
      { id: 'left', objective: 'write shared.txt left' },
      { id: 'right', objective: 'write shared.txt right' },
    ],
    { 'shared.txt': 'base\n' },
  );

/** A one-task batch whose merge's verify command never ends, once that command runs; its pid. */
async function batchHangingInMerge() {
  const { repo, tasksFile, env } = setup([{ id: 'a', objective: 'write a.txt a' }]);
  const pidFile = join(tempFolder('ralph-batch-verify-'), 'pid');
  const check = quote([process.execPath, fixture('hang-in-merge-check.mjs')]);
  const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--verify', check], {
    cwd: repo,
    env: { ...env, BATCH_VERIFY_PID: pidFile },
  });
  const verifyPid = await waitUntil(
    () => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')),
    'the merge verify',
  );
  return { repo, tasksFile, env, batch, verifyPid };
}

/** The most agents alive at once, from their `start <pid>` / `end <pid>` lines in the order they were written. */
function mostAlive(lines: string[]): number {
  let alive = 0;
  let most = 0;
  for (const line of lines) {
    alive += line.startsWith('start') ? 1 : -1;
    most = Math.max(most, alive);
  }
  return most;
}

/** The batch's target branch as the summary names it. */
const targetOf = (stdout: string): string => /^target (\S+);/m.exec(stdout)?.[1] ?? '';

/** The batch's target as its first progress line names it (before any summary exists). */
const startedTarget = (stderr: string): string => /landing on (\S+) from/.exec(stderr)?.[1] ?? '';

/** Commits `file` onto `branch` as someone else would, from a worktree of their own; the new commit's id. */
function commitFromOutside(repo: string, branch: string, file: string, text: string): string {
  const elsewhere = join(tempFolder('ralph-batch-outside-'), 'tree');
  const before = gitIn(repo, 'rev-parse', `refs/heads/${branch}`);
  gitIn(repo, 'worktree', 'add', '--quiet', '--detach', elsewhere, before);
  writeFileSync(join(elsewhere, file), text);
  gitIn(elsewhere, 'add', file);
  gitIn(elsewhere, 'commit', '--quiet', '-m', `outside: ${file}`);
  const head = gitIn(elsewhere, 'rev-parse', 'HEAD');
  gitIn(repo, 'update-ref', `refs/heads/${branch}`, head, before);
  gitIn(repo, 'worktree', 'remove', '--force', elsewhere);
  return head;
}

/** The status lines a batch recorded for one task, in order. */
const recordedStatuses = (recording: string, taskId: string): string[] =>
  readFileSync(recording, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type?: string; id?: string; status?: string })
    .filter((line) => line.id === taskId && line.status !== undefined)
    .map((line) => line.status as string);

/** The arguments after `ralph` of the command a summary gives after `label` (printed shell-quoted). */
function commandAfter(stdout: string, label: string): string[] {
  const line = stdout.split('\n').find((l) => l.trimStart().includes(label)) ?? '';
  const words = parse(line.slice(line.indexOf(label) + label.length)) as string[];
  expect(words[0]).toBe('ralph');
  return words.slice(1);
}

/** Runs a `--resume` of a batch that settled: refused (exit 2), there being nothing to resume. */
async function expectNothingToResume(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const again = await ralph(args, options);
  expect(again.code, again.stdout + again.stderr).toBe(2);
  expect(again.stderr).toContain('already settled: there is nothing to resume');
}

/** How many commits on `target` carry task `taskId`'s `Ralph-Task:` trailer: the commits the batch made for it. */
const taskCommitsOn = (repo: string, target: string, taskId: string): number =>
  gitIn(repo, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', target)
    .split('\n')
    .filter((line) => line.endsWith(`/${taskId}`)).length;

/** The repository's worktrees other than the main one. */
const extraWorktrees = (repo: string): string[] =>
  gitIn(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .slice(1);

describe('ralph batch', () => {
  test('tasks touching different files all land, in dependency order, and the working tree is left alone', async () => {
    const { repo, tasksFile, env } = setup([
      { id: 'second', objective: 'write b.txt from second', after: ['first'] },
      { id: 'first', objective: 'commit a.txt from first' },
      { id: 'other', objective: 'write c.txt from other' },
    ]);
    writeFileSync(join(repo, 'README.md'), 'my own edit, not committed\n');
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.stderr).toContain('uncommitted changes in 1 path(s)');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const target = targetOf(run.stdout);
    expect(target).toMatch(/^ralph\/batch-/);
    expect(gitIn(repo, 'show', `${target}:a.txt`)).toBe('from first');
    expect(gitIn(repo, 'show', `${target}:b.txt`)).toBe('from second');
    expect(gitIn(repo, 'show', `${target}:c.txt`)).toBe('from other');
    expect(gitIn(repo, 'show', `${target}:README.md`)).toBe('hello');
    // second came after first: its commit is above first's on the target.
    const subjects = gitIn(repo, 'log', '--format=%s', target).split('\n');
    expect(subjects).toContain('write b.txt from second');
    expect(subjects.indexOf('agent: a.txt')).toBeGreaterThan(subjects.indexOf('write b.txt from second'));
    // What the agent left uncommitted is in a commit whose subject is the task's objective; its body and trailers
    // name the batch, the task and its run.
    const batchId = target.slice('ralph/batch-'.length);
    expect(subjects).toContain('write c.txt from other');
    const otherBody = gitIn(repo, 'log', '-1', '--format=%b', '--grep=^write c.txt from other$', target);
    expect(otherBody).toMatch(
      new RegExp(
        `^ralph batch ${batchId}: task other \\(run (\\S+)\\): what the task's agents left uncommitted`,
      ),
    );
    const runId = /\(run (\S+)\)/.exec(otherBody)?.[1];
    expect(otherBody.split('\n').slice(-3)).toEqual([
      `Ralph-Batch: ${batchId}`,
      `Ralph-Run: ${runId}`,
      `Ralph-Task: ${batchId}/other`,
    ]);
    expect(taskCommitsOn(repo, target, 'other')).toBe(1);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('my own edit, not committed\n');
    expect(gitIn(repo, 'branch', '--show-current')).toBe('main');
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('two tasks editing the same lines: one lands, the other needs review naming the file, the target holds the landed one', async () => {
    const { repo, tasksFile, env } = setupConflictingPair();
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const landed = /^(left|right): landed$/m.exec(run.stdout)?.[1];
    const other = landed === 'left' ? 'right' : 'left';
    expect(landed).toBeDefined();
    expect(run.stdout).toMatch(new RegExp(`^${other}: needs-review: conflict in shared.txt`, 'm'));
    expect(run.stdout).toContain('conflicting files: shared.txt');
    expect(run.stderr).toContain(`${other}: needs review: conflict in shared.txt`);
    const target = targetOf(run.stdout);
    expect(gitIn(repo, 'show', `${target}:shared.txt`)).toBe(landed);
    // The needs-review task keeps its branch and worktree, listed; nothing else is left.
    const kept = /worktree (\S+)/.exec(run.stdout)?.[1] ?? '';
    expect(extraWorktrees(repo)).toEqual([`worktree ${kept}`]);
    expect(readFileSync(join(kept, 'shared.txt'), 'utf8')).toBe(`${other}\n`);
    // The batch's recording gives one page: a row per task, linking to each run's own report.
    const recording = /^recording (\S+);/m.exec(run.stdout)?.[1] as string;
    const page = await ralph(
      ['report', recording, '-o', join(repo, '..', `${targetOf(run.stdout).replace(/\W/g, '-')}.html`)],
      {
        cwd: repo,
      },
    );
    expect(page.code).toBe(0);
    const html = readFileSync(/report written to (\S+)/.exec(page.stderr)?.[1] as string, 'utf8');
    expect(html).toMatch(
      new RegExp(
        `<tr class="status-${'needs-review'}">.*${other}.*conflict in shared.txt.*<td>shared.txt</td>`,
      ),
    );
    expect(html).toMatch(new RegExp(`<tr class="status-landed"><td><a href="[^"]*runs/${landed}.html">`));
    expect(existsSync(join(dirname(recording), 'runs', `${landed}.html`))).toBe(true);
  }, 60_000);

  test('--resolve-conflicts hands a conflict to a resolver loop; its resolution is verified and both tasks land', async () => {
    const { repo, tasksFile, env } = setupConflictingPair();
    const args = ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resolve-conflicts'];
    const refused = await ralph(args, { cwd: repo, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--resolve-conflicts needs --verify');
    const run = await ralph([...args, '--verify', BOTH_FILES_CHECK], { cwd: repo, env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^left: landed$/m);
    expect(run.stdout).toMatch(/^right: landed$/m);
    expect(run.stderr).toContain('a resolver loop takes the conflicts in shared.txt');
    const target = targetOf(run.stdout);
    expect(gitIn(repo, 'show', `${target}:shared.txt`).split('\n').sort()).toEqual(['left', 'right']);
    expect(gitIn(repo, 'log', '-1', '--format=%s', target)).toMatch(
      /onto \S+, conflicts resolved \(run \S+\)$/,
    );
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('a merged tree that fails the verify command needs review, and the target does not move', async () => {
    // Each task's own tree holds one of x.txt and y.txt, so each loop's verify passes; their combination fails.
    const { repo, tasksFile, env } = setup([
      { id: 'x', objective: 'write x.txt x' },
      { id: 'y', objective: 'write y.txt y' },
    ]);
    const run = await ralph(
      [
        'batch',
        tasksFile,
        '--agent-command',
        AGENT,
        '--cwd',
        repo,
        '--verify',
        BOTH_FILES_CHECK,
        '--parallel',
        '2',
      ],
      { cwd: repo, env },
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const landed = /^(x|y): landed$/m.exec(run.stdout)?.[1] as string;
    const other = landed === 'x' ? 'y' : 'x';
    expect(run.stdout).toMatch(
      new RegExp(`^${other}: needs-review: the verify command failed on the combined tree`, 'm'),
    );
    expect(run.stdout).toContain('FAIL: x.txt and y.txt do not go together');
    // The failing output is quoted under its task, indented: a line at the left edge is always a task's own.
    expect(run.stdout).toMatch(/^ {4}\(exit 1\)$/m);
    expect(run.stdout).toMatch(/^ {4}.*FAIL: x.txt and y.txt do not go together$/m);
    for (const line of run.stdout.split('\n').filter((l) => l !== '' && !l.startsWith(' ')))
      expect(line).toMatch(/^(x|y): |^target |^recording /);
    // The batch's page shows that output too, not only the line that announces it.
    const recording = /^recording (\S+);/m.exec(run.stdout)?.[1] as string;
    const page = await ralph(['report', recording, '-o', join(repo, '..', 'verify-failed.html')], {
      cwd: repo,
    });
    expect(page.code).toBe(0);
    const html = readFileSync(join(repo, '..', 'verify-failed.html'), 'utf8');
    expect(html).toMatch(
      /<tr class="status-needs-review">.*the verify command failed on the combined tree:.*\(exit 1\)\n.*FAIL: x.txt and y.txt do not go together/s,
    );
    const target = targetOf(run.stdout);
    expect(gitIn(repo, 'ls-tree', '--name-only', target).split('\n').sort()).toEqual(
      ['README.md', `${landed}.txt`].sort(),
    );
  }, 60_000);

  test('never more than --parallel agents are alive at once', async () => {
    const tasks = Array.from({ length: 5 }, (_, n) => ({
      id: `t${n}`,
      objective: `write f${n}.txt ${n}\nhold 300`,
    }));
    const { repo, tasksFile, env, agentLines } = setup(tasks);
    const run = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--parallel', '2'],
      {
        cwd: repo,
        env,
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const most = mostAlive(agentLines());
    expect(agentLines().filter((l) => l.startsWith('start'))).toHaveLength(5);
    expect(most).toBeLessThanOrEqual(2);
  }, 60_000);

  test('20 tasks at --parallel 4 all land, each once, never more than 4 agents alive', async () => {
    const tasks = Array.from({ length: 20 }, (_, n) => ({ id: `t${n}`, objective: `write f${n}.txt ${n}` }));
    const { repo, tasksFile, env, agentLines } = setup(tasks);
    const run = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--parallel', '4'],
      {
        cwd: repo,
        env,
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const target = targetOf(run.stdout);
    const files = gitIn(repo, 'ls-tree', '--name-only', target).split('\n');
    expect(files).toHaveLength(21);
    for (const task of tasks) expect(taskCommitsOn(repo, target, task.id)).toBe(1);
    const most = mostAlive(agentLines());
    expect(most).toBeLessThanOrEqual(4);
    expect(extraWorktrees(repo)).toEqual([]);
  }, 120_000);

  test('Ctrl-C cancels every loop: exit 130, no agent left, no worktree left', async () => {
    const tasks = Array.from({ length: 3 }, (_, n) => ({
      id: `h${n}`,
      objective: `write f${n}.txt ${n}\nhang`,
    }));
    const { repo, tasksFile, env, agentLines } = setup(tasks);
    const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    const pids = await waitUntil(() => {
      const started = agentLines().filter((l) => l.startsWith('start'));
      return started.length === 2 ? started.map((l) => Number(l.split(' ')[1])) : undefined;
    }, 'two agents to start');
    batch.child.kill('SIGINT');
    const end = await batch.finished;
    expect(end.code, end.stdout + end.stderr).toBe(130);
    expect(end.stdout).toMatch(/^h0: cancelled/m);
    expect(end.stdout).toMatch(/^h2: cancelled/m);
    for (const pid of pids) expect(isGone(pid)).toBe(true);
    expect(extraWorktrees(repo)).toEqual([]);
    // The cancelled loops' work is kept on their branches, and the summary says where; h2 never started.
    expect(gitIn(repo, 'branch', '--list', 'ralph/*/h0')).toContain('h0');
    const id = /batch (\S+): 3 task/.exec(end.stderr)?.[1] as string;
    expect(end.stdout).toContain(
      `h0: cancelled: the batch was cancelled\n  its work: branch ralph/${id}/h0\n`,
    );
    expect(end.stdout).toContain(
      `h1: cancelled: the batch was cancelled\n  its work: branch ralph/${id}/h1\n`,
    );
    expect(end.stdout).toMatch(/^h2: cancelled: the batch was cancelled$/m);
    expect(end.stdout).not.toContain(`ralph/${id}/h2`);
  }, 60_000);

  test("the batch's --max-time holds for the whole batch: its loops are cancelled, exit 4, nothing left but what is listed", async () => {
    const tasks = Array.from({ length: 3 }, (_, n) => ({
      id: `h${n}`,
      objective: `write f${n}.txt ${n}\nhang`,
    }));
    const { repo, tasksFile, env, agentLines } = setup(tasks);
    const run = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--parallel', '1', '--max-time', '1s'],
      { cwd: repo, env },
    );
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.stderr).toContain("the batch's --max-time ran out");
    expect(run.stdout).toMatch(/^h2: cancelled/m);
    for (const line of agentLines()) expect(isGone(Number(line.split(' ')[1]))).toBe(true);
    const listed = [...run.stdout.matchAll(/worktree (\S+)/g)].map((m) => `worktree ${m[1]}`);
    expect(extraWorktrees(repo)).toEqual(listed);
  }, 60_000);

  test('Ctrl-C in the middle of a merge stops the verify command: exit 130, no process, the target unmoved', async () => {
    const { repo, batch, verifyPid: pid } = await batchHangingInMerge();
    batch.child.kill('SIGINT');
    const end = await batch.finished;
    expect(end.code, end.stdout + end.stderr).toBe(130);
    expect(end.stdout).toMatch(/^a: cancelled/m);
    await waitUntil(() => isGone(pid), 'the verify command to be gone');
    expect(gitIn(repo, 'rev-parse', targetOf(end.stdout))).toBe(gitIn(repo, 'rev-parse', 'main'));
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('--into lands on an existing branch; one checked out is refused', async () => {
    const { repo, tasksFile, env } = setup([{ id: 'a', objective: 'write a.txt a' }]);
    gitIn(repo, 'branch', 'integration');
    const refused = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--into', 'main'], {
      cwd: repo,
      env,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--into main: that branch is checked out in a worktree');
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--into', 'integration'], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(targetOf(run.stdout)).toBe('integration');
    expect(gitIn(repo, 'show', 'integration:a.txt')).toBe('a');
    expect(gitIn(repo, 'branch', '--list', 'ralph/batch-*')).toBe('');
  }, 60_000);

  test('a loop that fails keeps its worktree and work, listed; the task after it is skipped and never starts', async () => {
    const { repo, tasksFile, env, agentLines } = setup([
      { id: 'broken', objective: 'write half.txt half done\ncrash' },
      { id: 'later', objective: 'write later.txt later', after: ['broken'] },
      { id: 'fine', objective: 'write fine.txt fine' },
    ]);
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(
      /^broken: failed: Ralph round 1 child failed before producing a structured report\./m,
    );
    expect(run.stdout).toMatch(/^later: skipped: a task it comes after did not land$/m);
    expect(run.stdout).toMatch(/^fine: landed$/m);
    expect(agentLines().filter((l) => l.startsWith('start'))).toHaveLength(2);
    const kept = /worktree (\S+)/.exec(run.stdout)?.[1] as string;
    expect(extraWorktrees(repo)).toEqual([`worktree ${kept}`]);
    // What the failed loop's agent wrote is committed on its branch, never lost.
    expect(gitIn(kept, 'show', 'HEAD:half.txt')).toBe('half done');
  }, 60_000);

  test('SIGKILL of ralph mid-batch, then --resume: landed tasks stay landed, the others go on, every task lands once', async () => {
    const side = tempFolder('ralph-batch-marker-');
    const marker = join(side, 'hold');
    writeFileSync(marker, '');
    const { repo, tasksFile, env, agentLines } = setup([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: `write b.txt b\nhang-while ${marker}` },
      { id: 'c', objective: `write c.txt c\nhang-while ${marker}` },
    ]);
    const first = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    await waitUntil(
      () =>
        first.stderrSoFar().includes('a: landed') &&
        agentLines().filter((l) => l.startsWith('start')).length === 3,
      'a to land and b and c to hang',
    );
    const pidsOf = (kind: string) =>
      agentLines()
        .filter((l) => l.startsWith(kind))
        .map((l) => l.split(' ')[1]);
    const orphans = pidsOf('start')
      .filter((pid) => !pidsOf('end').includes(pid))
      .map(Number);
    expect(orphans).toHaveLength(2);
    first.child.kill('SIGKILL');
    await first.finished;
    // The killed batch's agents are still there: the resume is what stops them.
    for (const pid of orphans) expect(isGone(pid)).toBe(false);
    rmSync(marker);
    const id = /batch (\S+): 3 task/.exec(first.stderrSoFar())?.[1] as string;
    const recording = join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl');
    const resumed = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resume', recording],
      {
        cwd: repo,
        env,
      },
    );
    expect(resumed.stderr).toContain(`resuming batch ${id}: 1 of 3 task(s) settled already`);
    expect(resumed.stderr).toMatch(/b: resuming run \S+ after round 0 in /);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    for (const pid of orphans) await waitUntilGone(pid);
    const target = targetOf(resumed.stdout);
    for (const task of ['a', 'b', 'c']) expect(taskCommitsOn(repo, target, task)).toBe(1);
    expect(extraWorktrees(repo)).toEqual([]);
    await expectNothingToResume(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resume', recording],
      { cwd: repo, env },
    );
  }, 60_000);

  test("SIGKILL of ralph while a merge's verify command runs, then --resume: the dead batch's verify is killed first, the task lands once", async () => {
    const { repo, tasksFile, env, batch: first, verifyPid } = await batchHangingInMerge();
    first.child.kill('SIGKILL');
    await first.finished;
    try {
      // The killed batch's verify command is still there, in the scratch tree the resumed merge is made in.
      expect(isGone(verifyPid)).toBe(false);
      const id = /batch (\S+): 1 task/.exec(first.stderrSoFar())?.[1] as string;
      const recording = join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl');
      const resumed = await ralph(
        ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resume', recording],
        { cwd: repo, env },
      );
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(resumed.stdout).toMatch(/^a: landed$/m);
      await waitUntilGone(verifyPid);
      expect(taskCommitsOn(repo, targetOf(resumed.stdout), 'a')).toBe(1);
      expect(extraWorktrees(repo)).toEqual([]);
    } finally {
      if (!isGone(verifyPid)) process.kill(-verifyPid, 'SIGKILL');
    }
  }, 60_000);

  test('a bad tasks file is refused (exit 2) before any branch, worktree or agent exists', async () => {
    const { repo, tasksFile, env, agentLines } = setup([
      { id: 'a', objective: 'write a.txt a', after: ['b'] },
      { id: 'b', objective: 'write b.txt b', after: ['a'] },
    ]);
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain('is refused: tasks come after each other in a cycle: a → b → a');
    expect(gitIn(repo, 'branch', '--list', 'ralph/*')).toBe('');
    expect(agentLines()).toEqual([]);
    const notRepo = tempFolder('ralph-batch-plain-');
    writeFileSync(join(notRepo, 'TASKS.md'), '- [ ] write a.txt a\n');
    const plain = await ralph(['batch', 'TASKS.md', '--agent-command', AGENT], { cwd: notRepo, env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('is not in a git repository');
    const parallel = await ralph(
      ['batch', join(notRepo, 'TASKS.md'), '--agent-command', AGENT, '--parallel', '0'],
      {
        cwd: repo,
        env,
      },
    );
    expect(parallel.code).toBe(2);
    expect(parallel.stderr).toContain('--parallel must be a whole number from 1 to 64');
    const grace = await ralph(
      ['batch', join(notRepo, 'TASKS.md'), '--agent-command', AGENT, '--grace-ms', 'soon'],
      {
        cwd: notRepo,
        env,
      },
    );
    expect(grace.code).toBe(2);
    expect(grace.stderr).toContain('--grace-ms must be a whole number of milliseconds (got "soon")');
  }, 60_000);

  test('a YAML tasks file runs as JSON does; a bad one is refused (exit 2) with the same message', async () => {
    const { repo, env, agentLines } = setup([]);
    const side = tempFolder('ralph-batch-yaml-');
    const tasksFile = join(side, 'tasks.yml');
    writeFileSync(
      tasksFile,
      [
        'tasks:',
        '  - id: first',
        '    objective: commit a.txt from first',
        '  - id: second',
        '    objective: |',
        '      write b.txt from second',
        '    after: [first]',
        '',
      ].join('\n'),
    );
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const target = targetOf(run.stdout);
    expect(gitIn(repo, 'show', `${target}:a.txt`)).toBe('from first');
    expect(gitIn(repo, 'show', `${target}:b.txt`)).toBe('from second');
    const started = agentLines().length;
    const cycle = join(side, 'cycle.yaml');
    writeFileSync(
      cycle,
      '- {id: a, objective: write a.txt a, after: [b]}\n- {id: b, objective: write b.txt b, after: [a]}\n',
    );
    const refused = await ralph(['batch', cycle, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `the tasks file ${cycle} is refused: tasks come after each other in a cycle: a → b → a`,
    );
    expect(agentLines()).toHaveLength(started);
    expect(gitIn(repo, 'branch', '--list', 'ralph/batch-*').split('\n')).toHaveLength(1);
  }, 60_000);

  test("the batch's --max-cost holds for the whole batch: once its tasks' summed cost reaches it no task starts, exit 4, nothing half-landed", async () => {
    const tasks = Array.from({ length: 4 }, (_, n) => ({
      id: `t${n}`,
      objective: `write f${n}.txt ${n}\ncost 0.25`,
    }));
    const { repo, tasksFile, env, agentLines } = setup(tasks);
    const run = await ralph(
      [
        'batch',
        tasksFile,
        '--agent-command',
        AGENT,
        '--agent-reports-cost',
        '--cwd',
        repo,
        '--parallel',
        '1',
        '--max-cost',
        '0.6',
      ],
      { cwd: repo, env },
    );
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.stderr).toContain("the batch's --max-cost was reached ($0.75)");
    // $0.25 a task: the third loop's end passes $0.60; the fourth never starts.
    expect(agentLines().filter((l) => l.startsWith('start'))).toHaveLength(3);
    expect(run.stdout).toMatch(/^t3: cancelled/m);
    // The loops that ended landed, or were cancelled in the queue if their merge had not moved the target yet.
    for (const task of tasks) expect(run.stdout).toMatch(new RegExp(`^${task.id}: (landed|cancelled)`, 'm'));
    // Whatever landed landed whole, each once; what did not is not on the target at all.
    const target = targetOf(run.stdout);
    const files = gitIn(repo, 'ls-tree', '--name-only', target).split('\n');
    const landed = tasks.filter((task) => new RegExp(`^${task.id}: landed$`, 'm').test(run.stdout));
    expect(files.filter((f) => /^f\d\.txt$/.test(f))).toEqual(
      landed.map((task) => `f${task.id.slice(1)}.txt`),
    );
    for (const task of tasks)
      expect(taskCommitsOn(repo, target, task.id)).toBe(landed.includes(task) ? 1 : 0);
    expect(run.stdout).not.toContain('.merge');
    expect(
      existsSync(
        join(repo, '.git', 'ralph', 'batches', /--rollback (\S+)/.exec(run.stdout)?.[1] ?? '', '.merge'),
      ),
    ).toBe(false);
  }, 60_000);

  test('a target someone else moves mid-batch: a later merge rebases onto their commit; one moved during a merge is needs-review, their commit kept', async () => {
    const side = tempFolder('ralph-batch-moved-');
    const hold = join(side, 'hold');
    const verifyStarted = join(side, 'verify-started');
    const verifyGo = join(side, 'verify-go');
    writeFileSync(hold, '');
    const { repo, tasksFile, env, agentLines } = setup([
      { id: 'a', objective: `write a.txt a\nhold-while ${hold}` },
      { id: 'b', objective: 'write b.txt b', after: ['a'], verify: WAIT_IN_MERGE_CHECK },
    ]);
    // b's own verify command is the file's: it runs only with --trust-tasks.
    const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--trust-tasks'], {
      cwd: repo,
      env: { ...env, BATCH_VERIFY_STARTED: verifyStarted, BATCH_VERIFY_GO: verifyGo },
    });
    await waitUntil(() => agentLines().length === 1 && startedTarget(batch.stderrSoFar()), 'a to start');
    const target = startedTarget(batch.stderrSoFar());
    // While a's loop runs, someone commits onto the target: a lands on top of their commit.
    const first = commitFromOutside(repo, target, 'outside-1.txt', 'one\n');
    rmSync(hold);
    // While b's merge is being verified, someone moves the target again: b must not land over it.
    await waitUntil(() => existsSync(verifyStarted), "b's merge verify to start");
    expect(batch.stderrSoFar()).toContain('a: landed');
    const second = commitFromOutside(repo, target, 'outside-2.txt', 'two\n');
    writeFileSync(verifyGo, '');
    const end = await batch.finished;
    expect(end.code, end.stdout + end.stderr).toBe(1);
    expect(end.stdout).toMatch(/^a: landed$/m);
    expect(end.stdout).toMatch(/^b: needs-review: .*moved while the merge was verified/m);
    // The target is where they left it, with both their commits and a's, in order; b is on its branch only.
    expect(gitIn(repo, 'rev-parse', target)).toBe(second);
    const log = gitIn(repo, 'log', '--format=%H %s', target).split('\n');
    expect(log[0]).toBe(`${second} outside: outside-2.txt`);
    const aAt = log.findIndex((l) => / write a\.txt a$/.test(l));
    expect(aAt).toBeGreaterThan(0);
    expect(log.findIndex((l) => l.startsWith(first))).toBeGreaterThan(aAt);
    expect(gitIn(repo, 'show', `${target}:a.txt`)).toBe('a');
    expect(gitIn(repo, 'ls-tree', '--name-only', target)).not.toContain('b.txt');
    expect(gitIn(repo, 'show', `${/branch (\S+),/.exec(end.stdout)?.[1]}:b.txt`)).toBe('b');
  }, 60_000);

  test('SIGKILL between moving the target and recording the landing, then --resume: the task lands once, its commit on the target once', async () => {
    const side = tempFolder('ralph-batch-pause-');
    const pause = join(side, 'paused');
    const hold = join(side, 'hold');
    writeFileSync(hold, '');
    // b is rebased onto a's landing, so the commit it lands is a new one, not its branch's own.
    const { repo, tasksFile, env } = setup([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: `write b.txt b\nhold-while ${hold}` },
    ]);
    const first = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env: { ...env, RALPH_TEST_PAUSE_AFTER_LAND: pause },
    });
    const pausedOn = () => (existsSync(pause) ? readFileSync(pause, 'utf8') : '');
    await waitUntil(() => pausedOn() === 'a', "a's landing to pause");
    rmSync(pause);
    await waitUntil(() => first.stderrSoFar().includes('a: landed'), 'a to be recorded landed');
    rmSync(hold);
    await waitUntil(() => pausedOn() === 'b', "b's landing to pause");
    const target = startedTarget(first.stderrSoFar());
    const moved = gitIn(repo, 'rev-parse', target);
    first.child.kill('SIGKILL');
    await first.finished;
    const id = /batch (\S+): 2 task/.exec(first.stderrSoFar())?.[1] as string;
    const recording = join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl');
    // The target moved, the recording does not know it yet.
    expect(gitIn(repo, 'show', `${moved}:b.txt`)).toBe('b');
    expect(recordedStatuses(recording, 'b')).not.toContain('landed');
    const resumed = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resume', recording],
      { cwd: repo, env },
    );
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming batch ${id}: 1 of 2 task(s) settled already`);
    expect(resumed.stdout).toMatch(/^a: landed$/m);
    expect(resumed.stdout).toMatch(/^b: landed$/m);
    for (const task of ['a', 'b'])
      expect(recordedStatuses(recording, task).filter((s) => s === 'landed')).toHaveLength(1);
    for (const task of ['a', 'b']) expect(taskCommitsOn(repo, target, task)).toBe(1);
    // The landing made before the crash is the one that counts: the resume added nothing above it.
    expect(gitIn(repo, 'rev-parse', target)).toBe(moved);
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('Ctrl-C just after the target moved: the landing counts, the task is landed, not cancelled', async () => {
    const side = tempFolder('ralph-batch-cancel-land-');
    const pause = join(side, 'paused');
    const { repo, tasksFile, env } = setup([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: 'write b.txt b\nhang' },
    ]);
    const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env: { ...env, RALPH_TEST_PAUSE_AFTER_LAND: pause },
    });
    await waitUntil(() => existsSync(pause), "a's landing to pause");
    batch.child.kill('SIGINT');
    await waitUntil(() => batch.stderrSoFar().includes('cancelling every loop'), 'the cancel to be heard');
    rmSync(pause);
    const end = await batch.finished;
    expect(end.code, end.stdout + end.stderr).toBe(130);
    const target = targetOf(end.stdout);
    expect(gitIn(repo, 'show', `${target}:a.txt`)).toBe('a');
    // What the target holds is what the summary and the recording say: a landed.
    expect(end.stdout).toMatch(/^a: landed$/m);
    expect(end.stdout).toMatch(/^b: cancelled/m);
    const id = /--rollback (\S+)/.exec(end.stdout)?.[1] as string;
    const recording = join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl');
    expect(recordedStatuses(recording, 'a').at(-1)).toBe('landed');
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('a target checked out during the batch is never landed on: the task needs review, that worktree stays clean', async () => {
    const { repo, tasksFile, env } = setup([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: 'write b.txt b\ncheckout-target', after: ['a'] },
    ]);
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const target = targetOf(run.stdout);
    // b's agent checked the target out in the main worktree after a landed: b's landing is refused, a's stays.
    expect(run.stdout).toMatch(/^a: landed$/m);
    expect(run.stdout).toContain(
      `b: needs-review: ${target} is checked out in the worktree ${gitIn(repo, 'rev-parse', '--show-toplevel')}, and a batch never moves a branch under someone's files: it was left as it is`,
    );
    expect(gitIn(repo, 'branch', '--show-current')).toBe(target);
    expect(gitIn(repo, 'show', `${target}:a.txt`)).toBe('a');
    expect(gitIn(repo, 'ls-tree', '--name-only', target)).not.toContain('b.txt');
    // The checked-out tree matches its branch: no landed work shows there as staged reversals.
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
  }, 60_000);

  test("--rollback refuses a target someone committed on after the batch's last landing: their commit is kept", async () => {
    const { repo, tasksFile, env } = setup([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: 'commit b.txt b' },
    ]);
    gitIn(repo, 'branch', 'dev');
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--into', 'dev'], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const id = /--rollback (\S+)/.exec(run.stdout)?.[1] as string;
    const colleague = commitFromOutside(repo, 'dev', 'theirs.txt', "a colleague's work\n");
    const refused = await ralph(['batch', '--rollback', id], { cwd: repo, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `ralph batch: dev moved since batch ${id}'s last landing (its head ${colleague.slice(0, 12)} is no landing of the batch): it was left as it is\n`,
    );
    expect(gitIn(repo, 'rev-parse', 'dev')).toBe(colleague);
    // Each landing's head is a commit of the batch, also the one whose agent committed everything itself.
    for (const task of ['a', 'b'])
      expect(
        gitIn(repo, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', `ralph/${id}/${task}`),
      ).toContain(`${id}/${task}`);
  }, 60_000);

  test('--rollback moves the target back to where the batch started', async () => {
    const { repo, tasksFile, env } = setup([{ id: 'a', objective: 'write a.txt a' }]);
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const id = /--rollback (\S+)/.exec(run.stdout)?.[1] as string;
    const start = gitIn(repo, 'rev-parse', 'main');
    expect(gitIn(repo, 'rev-parse', targetOf(run.stdout))).not.toBe(start);
    const landed = gitIn(repo, 'rev-parse', targetOf(run.stdout));
    const back = await ralph(['batch', '--rollback', id], { cwd: repo, env });
    expect(back.code).toBe(0);
    expect(back.stdout).toBe(
      `${targetOf(run.stdout)} rolled back from ${landed.slice(0, 12)} to ${start.slice(0, 12)}\n`,
    );
    expect(gitIn(repo, 'rev-parse', targetOf(run.stdout))).toBe(start);
    // A second rollback has nothing to move, and says so rather than "rolled back from X to X".
    const again = await ralph(['batch', '--rollback', id], { cwd: repo, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `${targetOf(run.stdout)} is already at batch ${id}'s start commit ${start.slice(0, 12)}: nothing to roll back\n`,
    );
    expect(gitIn(repo, 'rev-parse', targetOf(run.stdout))).toBe(start);
  }, 60_000);

  test('Ctrl-C, then the --resume the summary gives: the cancelled tasks run again from their branches and land', async () => {
    const side = tempFolder('ralph-batch-hold-');
    const hold = join(side, 'hold');
    writeFileSync(hold, '');
    const tasks = ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      objective: `write ${id}.txt ${id}\nhold-while ${hold}`,
    }));
    const { repo, tasksFile, env } = setup(tasks);
    const args = ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo];
    const batch = spawnRalph(args, { cwd: repo, env });

    const aTree = await waitUntil(
      () => /^ralph batch: a: started in (\S+) on /m.exec(batch.stderrSoFar())?.[1],
      'a to start',
    );
    // a's agent has written its file (and holds): its loop has work to keep when it is cancelled.
    await waitUntil(() => existsSync(join(aTree, 'a.txt')), "a's agent to write a.txt");
    const id = /batch (\S+): 4 task/.exec(batch.stderrSoFar())?.[1] as string;
    const recording = join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl');
    // While the batch runs, no task of it is landed by hand.
    const busy = await ralph(['batch', '--land', id, 'a', '--cwd', repo], { cwd: repo, env });
    expect(busy.code, busy.stdout + busy.stderr).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`batch ${id} is still running in process ${batch.child.pid}`));
    batch.child.kill('SIGINT');
    const end = await batch.finished;
    expect(end.code, end.stdout + end.stderr).toBe(130);
    for (const task of tasks) expect(end.stdout).toMatch(new RegExp(`^${task.id}: cancelled`, 'm'));
    // The summary says how to go on: the batch's own command line, with --resume naming its recording.
    const resume = quote(['ralph', ...args, '--resume', recording]);
    expect(end.stdout).toContain(`the cancelled tasks run again (landed ones stay landed) with: ${resume}\n`);
    // What a's cancelled loop wrote is committed on its branch.
    const aBranch = `ralph/${id}/a`;
    expect(gitIn(repo, 'show', `${aBranch}:a.txt`)).toBe('a');
    const cancelledWork = gitIn(repo, 'log', '-1', '--format=%s', aBranch);
    rmSync(hold);
    const goOn = commandAfter(end.stdout, 'landed ones stay landed) with: ');
    const resumed = await ralph(goOn, { cwd: repo, env });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming batch ${id}: 0 of 4 task(s) settled already`);
    for (const task of tasks) expect(resumed.stdout).toMatch(new RegExp(`^${task.id}: landed$`, 'm'));
    const target = targetOf(resumed.stdout);
    for (const task of tasks) expect(gitIn(repo, 'show', `${target}:${task.id}.txt`)).toBe(task.id);
    // a went on from its branch: the commit its cancelled loop left is on the target, under its own.
    expect(gitIn(repo, 'log', '--format=%s', target).split('\n')).toContain(cancelledWork);
    // The cancelled run's recording is kept beside the new one.
    expect(existsSync(join(dirname(recording), 'runs', 'a.jsonl.1'))).toBe(true);
    expect(extraWorktrees(repo)).toEqual([]);
    await expectNothingToResume(goOn, { cwd: repo, env });
  }, 90_000);

  test('a task that needs review, fixed on its branch by hand, lands with the --land command the summary gives, and the recording learns it', async () => {
    const { repo, tasksFile, env } = setupConflictingPair();
    const verifyLog = join(tempFolder('ralph-batch-verify-log-'), 'verify.log');
    const withLog = { ...env, BATCH_VERIFY_LOG: verifyLog };
    const run = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--verify', LOGGED_CHECK],
      {
        cwd: repo,
        env: withLog,
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const landed = /^(left|right): landed$/m.exec(run.stdout)?.[1] as string;
    const other = landed === 'left' ? 'right' : 'left';
    const id = /--rollback (\S+)/.exec(run.stdout)?.[1] as string;
    const branch = `ralph/${id}/${other}`;
    // The summary and the progress line say how to land it once fixed.
    const land = quote(['ralph', 'batch', '--land', id, other, '--cwd', repo]);
    const hint = `once its branch ${branch} is fixed (committed), land it with: ${land}`;
    expect(run.stdout).toContain(`\n  ${hint}\n`);
    expect(run.stderr).toContain(`ralph batch: ${other}: ${hint}\n`);
    const recording = /^recording (\S+);/m.exec(run.stdout)?.[1] as string;
    // Refused, nothing changed: a batch or a task that does not exist, a task that landed.
    for (const [args, message] of [
      [['nosuch', other], `there is no batch nosuch in ${repo}`],
      [[id, 'nosuch'], `batch ${id} has no task nosuch (its tasks: left, right)`],
      [[id, landed], `task ${landed} already landed on ${targetOf(run.stdout)}`],
    ] as const) {
      const refused = await ralph(['batch', '--land', ...args, '--cwd', repo], { cwd: repo, env: withLog });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    // A person fixes the branch in its worktree: rebased onto the target, the conflict resolved keeping both.
    const kept = /worktree (\S+)/.exec(run.stdout)?.[1] as string;
    const target = targetOf(run.stdout);
    expect(() => gitIn(kept, 'rebase', target)).toThrow();
    writeFileSync(join(kept, 'shared.txt'), `${landed}\n${other}\n`);
    gitIn(kept, 'add', 'shared.txt');
    gitIn(kept, '-c', 'core.editor=true', 'rebase', '--continue');
    const merges = () =>
      readFileSync(verifyLog, 'utf8')
        .split('\n')
        .filter((l) => l.endsWith('.merge'));
    const mergesBefore = merges().length;
    const landing = await ralph(commandAfter(run.stdout, 'land it with: '), { cwd: repo, env: withLog });
    expect(landing.code, landing.stdout + landing.stderr).toBe(0);
    expect(landing.stdout).toMatch(new RegExp(`^${other}: landed$`, 'm'));
    expect(gitIn(repo, 'show', `${target}:shared.txt`)).toBe(`${landed}\n${other}`);
    // The batch's verify command, as recorded, ran once more, on the combined tree.
    expect(merges()).toHaveLength(mergesBefore + 1);
    expect(extraWorktrees(repo)).toEqual([]);
    // The recording learns it: its page, --resume and --land all see the task landed.
    expect(recordedStatuses(recording, other).at(-1)).toBe('landed');
    // With the commit its landing moved the target to, which the batch's page shows.
    const landedLine = readFileSync(recording, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: string; status?: string; commit?: string })
      .findLast((line) => line.id === other && line.status === 'landed');
    expect(landedLine?.commit).toBe(gitIn(repo, 'rev-parse', target));
    const page = await ralph(['report', recording, '-o', join(dirname(recording), 'page.html')], {
      cwd: repo,
    });
    expect(page.code).toBe(0);
    expect(readFileSync(join(dirname(recording), 'page.html'), 'utf8')).toMatch(
      new RegExp(`<tr class="status-landed"><td>(<a [^>]*>)?${other}<`),
    );
    await expectNothingToResume(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--resume', recording],
      { cwd: repo, env },
    );
    const twice = await ralph(commandAfter(run.stdout, 'land it with: '), { cwd: repo, env: withLog });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`task ${other} already landed on ${target}`);
  }, 90_000);
});
