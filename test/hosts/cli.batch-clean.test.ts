import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { isGone, ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);

/** A repository, a tasks file beside it (outside it), and the log the fake agents write their starts and ends to. */
function batchRepo(tasks: unknown) {
  const repo = tempRepo({ 'shared.txt': 'base\n' });
  const side = tempFolder('ralph-clean-side-');
  const tasksFile = join(side, 'tasks.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  const log = join(side, 'agents.log');
  const env = { ...process.env, BATCH_AGENT_LOG: log };
  const agentLines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  const batch = (...more: string[]) =>
    ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, ...more], { cwd: repo, env });
  const clean = (...more: string[]) => ralph(['batch', '--clean', ...more], { cwd: repo, env });
  return { repo, tasksFile, env, agentLines, batch, clean };
}

/** Every branch and tag a batch makes (`ralph/…`). */
const ralphRefs = (repo: string): string[] =>
  gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/ralph/', 'refs/tags/ralph/')
    .split('\n')
    .filter(Boolean);

/** The repository's worktrees other than the main one. */
const extraWorktrees = (repo: string): string[] =>
  gitIn(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .slice(1)
    .map((l) => l.slice('worktree '.length));

const batchesOf = (repo: string) => join(repo, '.git', 'ralph', 'batches');

/** The batch id a batch's summary names. */
const idOf = (stdout: string): string => /--rollback (\S+)/.exec(stdout)?.[1] ?? '';

/** A batch of two tasks (a.txt, b.txt) that both landed on its session branch. */
async function landedBatch() {
  const made = batchRepo([
    { id: 'a', objective: 'write a.txt a' },
    { id: 'b', objective: 'write b.txt b' },
  ]);
  const run = await made.batch();
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return { ...made, id: idOf(run.stdout) };
}

describe('ralph batch --clean', () => {
  test('a landed batch: its task branches go; its session branch, tag and folder once a branch of yours holds its work', async () => {
    const { repo, clean, id } = await landedBatch();
    const refs = ralphRefs(repo);
    expect(refs).toEqual([
      `refs/heads/ralph/${id}/a`,
      `refs/heads/ralph/${id}/b`,
      `refs/heads/ralph/batch-${id}`,
      `refs/tags/ralph/batch-${id}/start`,
    ]);

    const dry = await clean('--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would remove branch ralph/${id}/a\n`);
    expect(dry.stdout).toContain(`would remove branch ralph/${id}/b\n`);
    expect(ralphRefs(repo)).toEqual(refs);

    // Both tasks' work is on the session branch (one landed as is, one rebased): their branches go. The session
    // branch holds the only copy of what landed, so it stays, with its tag and folder.
    const first = await clean();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(
      [
        `removed branch ralph/${id}/a`,
        `removed branch ralph/${id}/b`,
        `kept branch ralph/batch-${id}: its 2 landed commits are on no branch of yours; merge it, or --force to delete`,
        `kept tag ralph/batch-${id}/start: batch ${id} still has what is kept above`,
        `kept batch folder ${join(batchesOf(repo), id)}: batch ${id} still has what is kept above`,
        'ralph batch --clean: removed 2 branches, 0 tags, 0 worktrees, 0 batch folders; kept 1 branch, 1 tag, 0 worktrees, 1 batch folder',
        '',
      ].join('\n'),
    );

    gitIn(repo, 'merge', '--quiet', '--ff-only', `ralph/batch-${id}`);
    const second = await clean(id);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`removed branch ralph/batch-${id}\n`);
    expect(second.stdout).toContain(`removed tag ralph/batch-${id}/start\n`);
    expect(second.stdout).toContain(
      'ralph batch --clean: removed 1 branch, 1 tag, 0 worktrees, 1 batch folder; kept 0 branches',
    );
    expect(ralphRefs(repo)).toEqual([]);
    expect(existsSync(join(batchesOf(repo), id))).toBe(false);
    expect(extraWorktrees(repo)).toEqual([]);
    expect(gitIn(repo, 'show', 'main:a.txt')).toBe('a');
    expect(gitIn(repo, 'show', 'main:b.txt')).toBe('b');
  }, 60_000);

  test('a session branch merged into yours and deleted: its task branches go, their work being on your branch', async () => {
    const { repo, clean, id } = await landedBatch();
    gitIn(repo, 'merge', '--quiet', '--squash', `ralph/batch-${id}`);
    gitIn(repo, 'commit', '--quiet', '-m', 'the batch, squashed');
    gitIn(repo, 'branch', '--quiet', '-D', `ralph/batch-${id}`);
    const cleaned = await clean();
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(
      'ralph batch --clean: removed 2 branches, 1 tag, 0 worktrees, 1 batch folder; kept 0 branches',
    );
    expect(ralphRefs(repo)).toEqual([]);
  }, 60_000);

  test('a needs-review branch stays, listed with why, until --force; the landed one goes and the target keeps it', async () => {
    const { repo, batch, clean } = batchRepo([
      { id: 'left', objective: 'write shared.txt left' },
      { id: 'right', objective: 'write shared.txt right' },
    ]);
    gitIn(repo, 'branch', 'dev');
    const run = await batch('--into', 'dev');
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const id = idOf(run.stdout);
    const landed = /^(left|right): landed$/m.exec(run.stdout)?.[1] as string;
    const other = landed === 'left' ? 'right' : 'left';
    const tree = join(batchesOf(repo), id, other);
    const dev = gitIn(repo, 'rev-parse', 'dev');

    const kept = await clean();
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain(`removed branch ralph/${id}/${landed}\n`);
    expect(kept.stdout).toContain(
      `kept branch ralph/${id}/${other}: 1 commit not on dev; --force to delete\n`,
    );
    expect(kept.stdout).toContain(`kept worktree ${tree}: ralph/${id}/${other} stays\n`);
    expect(kept.stdout).toContain(
      'removed 1 branch, 0 tags, 0 worktrees, 0 batch folders; kept 1 branch, 1 tag',
    );
    expect(ralphRefs(repo)).toEqual([`refs/heads/ralph/${id}/${other}`, `refs/tags/ralph/batch-${id}/start`]);
    expect(extraWorktrees(repo)).toEqual([tree]);
    expect(readFileSync(join(tree, 'shared.txt'), 'utf8')).toBe(`${other}\n`);

    const forced = await clean(id, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toBe(
      [
        `removed worktree ${tree}`,
        `removed branch ralph/${id}/${other}`,
        `removed tag ralph/batch-${id}/start`,
        `removed batch folder ${join(batchesOf(repo), id)}`,
        'ralph batch --clean: removed 1 branch, 1 tag, 1 worktree, 1 batch folder; kept 0 branches, 0 tags, 0 worktrees, 0 batch folders',
        '',
      ].join('\n'),
    );
    expect(ralphRefs(repo)).toEqual([]);
    expect(extraWorktrees(repo)).toEqual([]);
    // The target is the user's: it stays, with what landed.
    expect(gitIn(repo, 'rev-parse', 'dev')).toBe(dev);
    expect(gitIn(repo, 'show', 'dev:shared.txt')).toBe(landed);
  }, 60_000);

  test('a running batch is never touched, even with --force; once its process is dead, only --force removes it', async () => {
    const marker = join(tempFolder('ralph-clean-marker-'), 'hold');
    writeFileSync(marker, '');
    const { repo, tasksFile, env, agentLines, clean } = batchRepo([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: `write b.txt b\nhold-while ${marker}` },
    ]);
    const running = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    try {
      await waitUntil(
        () =>
          running.stderrSoFar().includes('a: landed') &&
          agentLines().filter((l) => l.startsWith('start')).length === 2,
        'a to land and b to hold',
      );
      const id = /batch (\S+): 2 task/.exec(running.stderrSoFar())?.[1] as string;
      const folder = join(batchesOf(repo), id);
      const before = {
        refs: ralphRefs(repo),
        trees: extraWorktrees(repo),
        files: readdirSync(folder).sort(),
      };
      expect(before.trees).toEqual([join(folder, 'b')]);

      const refused = await clean('--force');
      expect(refused.code, refused.stderr).toBe(0);
      expect(refused.stdout).toBe(
        [
          `kept batch folder ${folder}: batch ${id} is still running in process ${running.child.pid}; left alone, even with --force`,
          'ralph batch --clean: removed 0 branches, 0 tags, 0 worktrees, 0 batch folders; kept 0 branches, 0 tags, 0 worktrees, 1 batch folder',
          '',
        ].join('\n'),
      );
      expect({
        refs: ralphRefs(repo),
        trees: extraWorktrees(repo),
        files: readdirSync(folder).sort(),
      }).toEqual(before);

      // Killed mid-batch, it did not settle: it can be resumed, so only --force removes it.
      running.child.kill('SIGKILL');
      await running.finished;
      // b's agent outlives the batch it was started by; it ends once the marker goes.
      const lines = agentLines();
      const holder = lines.find(
        (l) => l.startsWith('start ') && !lines.includes(`end ${l.slice(6)}`),
      ) as string;
      rmSync(marker);
      await waitUntil(() => isGone(Number(holder.slice(6))), "b's agent to end");
      const crashed = await clean();
      expect(crashed.stdout).toContain(
        `kept batch folder ${folder}: batch ${id} did not settle and its process is gone: go on with ralph batch TASKS --resume ${join(folder, 'batch.jsonl')}, or --force to remove it\n`,
      );
      expect(ralphRefs(repo)).toEqual(before.refs);
      const forced = await clean('--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout).toContain(`removed worktree ${join(folder, 'b')}\n`);
      expect(forced.stdout).toContain(`removed batch folder ${folder}\n`);
      expect(ralphRefs(repo)).toEqual([]);
      expect(extraWorktrees(repo)).toEqual([]);
    } finally {
      rmSync(marker, { force: true });
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
    }
  }, 60_000);

  test('a crafted batches folder: path-like ids and links are left alone, nothing outside the git folder is removed', async () => {
    const repo = tempRepo();
    const victim = tempFolder('ralph-clean-victim-');
    writeFileSync(join(victim, 'keep.txt'), 'mine\n');
    const root = batchesOf(repo);
    const start = gitIn(repo, 'rev-parse', 'HEAD');
    const recording = (id: string, header: Record<string, unknown>) => {
      mkdirSync(join(root, id), { recursive: true });
      const head = {
        kind: 'ralph-batch',
        formatVersion: 1,
        batchId: id,
        startedAt: '',
        target: 'main',
        start,
      };
      const lines = [{ ...head, parallel: 1, tasks: [], runs: {}, process: null, ...header }];
      lines.push({ kind: 'settled', at: 1, cancelReason: null } as never);
      writeFileSync(join(root, id, 'batch.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    };
    recording('20260101-0000-aaaaaa', {
      tasks: [{ id: `../../../../../..${victim}`, objective: 'x', after: [] }],
    });
    recording('20260101-0000-bbbbbb', { batchId: `../../../../../..${victim}` });
    mkdirSync(join(root, 'not-a-batch'));
    symlinkSync(victim, join(root, '20260101-0000-cccccc'));
    // A batch ralph could have written, whose task worktree and runs folder are links to the victim.
    recording('20260101-0000-dddddd', { tasks: [{ id: 't1', objective: 'x', after: [] }] });
    symlinkSync(victim, join(root, '20260101-0000-dddddd', 't1'));
    symlinkSync(victim, join(root, '20260101-0000-dddddd', 'runs'));

    const stray = await ralph(['batch', '--force', '--cwd', repo]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('ralph batch --force goes with --clean');
    const withTasks = await ralph(['batch', join(victim, 'keep.txt'), '--clean', '--cwd', repo]);
    expect(withTasks.code).toBe(2);
    expect(withTasks.stderr).toContain('ralph batch --clean runs no batch: give it no tasks file');
    for (const bad of ['../x', `..${victim}`]) {
      const refused = await ralph(['batch', '--clean', bad, '--cwd', repo]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--clean ${JSON.stringify(bad)}: not a batch id`);
    }
    const missing = await ralph(['batch', '--clean', '20260101-0000-eeeeee', '--cwd', repo]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('there is no batch 20260101-0000-eeeeee in');

    const cleaned = await ralph(['batch', '--clean', '--force', '--cwd', repo]);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(
      `kept batch folder ${join(root, '20260101-0000-aaaaaa')}: batch 20260101-0000-aaaaaa: its recording is not one ralph wrote: its task id "../../../../../..${victim}" is not one; left alone\n`,
    );
    expect(cleaned.stdout).toContain(
      `kept batch folder ${join(root, '20260101-0000-bbbbbb')}: batch 20260101-0000-bbbbbb: its recording is not one ralph wrote: it names the batch "../../../../../..${victim}", not 20260101-0000-bbbbbb; left alone\n`,
    );
    expect(cleaned.stdout).toContain(
      `kept batch folder ${join(root, '20260101-0000-cccccc')}: a symbolic link, not a batch's; left alone\n`,
    );
    expect(cleaned.stdout).toContain(
      `kept batch folder ${join(root, 'not-a-batch')}: its name is not a batch id, so it is not a batch; left alone\n`,
    );
    expect(cleaned.stdout).toContain(`removed worktree ${join(root, '20260101-0000-dddddd', 't1')}\n`);
    expect(cleaned.stdout).toContain(`removed batch folder ${join(root, '20260101-0000-dddddd')}\n`);
    expect(readdirSync(root).sort()).toEqual([
      '20260101-0000-aaaaaa',
      '20260101-0000-bbbbbb',
      '20260101-0000-cccccc',
      'not-a-batch',
    ]);
    expect(readdirSync(victim)).toEqual(['keep.txt']);
    expect(readFileSync(join(victim, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(gitIn(repo, 'branch', '--list')).toBe('* main');

    // A git folder whose ralph folder is a link elsewhere is refused whole.
    const linked = tempRepo();
    mkdirSync(join(victim, 'batches', '20260101-0000-ffffff'), { recursive: true });
    symlinkSync(victim, join(linked, '.git', 'ralph'));
    const outside = await ralph(['batch', '--clean', '--force', '--cwd', linked]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(`${join(linked, '.git', 'ralph')} is a symbolic link`);
    expect(readdirSync(join(victim, 'batches'))).toEqual(['20260101-0000-ffffff']);
  }, 60_000);
});
