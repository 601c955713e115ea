import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

// An agent that would write its start in the log: none must start.
const AGENT = quote([process.execPath, '-e', 'require("fs").appendFileSync(process.env.LOG, "started\\n")']);

/** What a batch leaves in a repository: its branches, tags, worktrees and the folder under .git/ralph. */
function leftovers(repo: string) {
  return {
    branches: gitIn(repo, 'branch', '--list', 'ralph/*'),
    tags: gitIn(repo, 'tag', '--list'),
    worktrees: gitIn(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((line) => line.startsWith('worktree')),
    folder: existsSync(join(repo, '.git', 'ralph')),
  };
}

const NOTHING = { branches: '', tags: '', worktrees: [expect.any(String)], folder: false };

describe('a task id git refuses in a branch name', () => {
  test.each([
    [
      'tasks.json',
      '[{"id":"a..b","objective":"write a.txt"}]',
      '0.id: "a..b" cannot name a git branch: it contains ".."',
    ],
    [
      'tasks.yaml',
      'tasks:\n  - id: ok\n    objective: write ok.txt\n  - id: x.lock\n    objective: write x.txt\n',
      'tasks.1.id: "x.lock" cannot name a git branch: it ends with ".lock"',
    ],
    [
      'tasks.yml',
      '- {id: a., objective: write a.txt}\n',
      '0.id: "a." cannot name a git branch: it ends with "."',
    ],
  ])(
    'in %s: ralph batch exits 2 saying which rule, before any branch, tag, worktree or agent',
    async (name, text, message) => {
      const repo = tempRepo();
      const side = tempFolder('ralph-batch-ids-');
      const tasksFile = join(side, name);
      writeFileSync(tasksFile, text);
      const log = join(side, 'agents.log');
      const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
        cwd: repo,
        env: { ...process.env, LOG: log },
      });
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr).toContain(`ralph batch: the tasks file ${tasksFile} is refused: ${message}`);
      expect(run.stderr).toContain('which git refuses in a branch name');
      expect(leftovers(repo)).toEqual(NOTHING);
      expect(existsSync(log)).toBe(false);
    },
    60_000,
  );

  test('ralph submit --batch exits 2 before it tags anything on the remote', async () => {
    const seeded = tempRepo();
    const side = tempFolder('ralph-submit-ids-');
    const bare = join(side, 'remote.git');
    gitIn(side, 'clone', '--quiet', '--bare', seeded, bare);
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(tasksFile, '[{"id":"a..b","objective":"write a.txt"}]');
    const run = await ralph(
      ['submit', '--batch', tasksFile, '--repo', `file://${bare}`, '--agent-command', AGENT],
      { cwd: side, env: { ...process.env, RALPH_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' } },
    );
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain('0.id: "a..b" cannot name a git branch: it contains ".."');
    expect(gitIn(bare, 'tag', '--list')).toBe('');
  }, 60_000);
});

describe('a batch id git refuses in a branch name', () => {
  test('ralph batch --rollback exits 2 saying which rule, locally and with --repo', async () => {
    const repo = tempRepo();
    const local = await ralph(['batch', '--rollback', 'x.lock'], { cwd: repo });
    expect(local.code, local.stdout + local.stderr).toBe(2);
    expect(local.stderr).toContain(
      'ralph batch --rollback "x.lock" is refused: the batch id "x.lock" cannot name a git branch: it ends with ".lock"',
    );
    const remote = await ralph(['batch', '--rollback', '../x', '--repo', `file://${repo}`], { cwd: repo });
    expect(remote.code, remote.stdout + remote.stderr).toBe(2);
    expect(remote.stderr).toContain(
      'ralph batch --rollback "../x" is refused: the batch id must be 1-64 of a-z, 0-9, ".", "_", "-"',
    );
    expect(leftovers(repo)).toEqual(NOTHING);
  }, 60_000);

  test('ralph batch --resume of a recording whose batch id git refuses exits 2, nothing started', async () => {
    const repo = tempRepo();
    const folder = join(repo, '.git', 'ralph', 'batches', 'a..b');
    const side = tempFolder('ralph-resume-ids-');
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(tasksFile, '[{"id":"a","objective":"write a.txt"}]');
    const header = {
      kind: 'ralph-batch',
      formatVersion: 1,
      batchId: 'a..b',
      startedAt: new Date().toISOString(),
      target: 'ralph/batch-a..b',
      start: gitIn(repo, 'rev-parse', 'HEAD'),
      parallel: 1,
      tasks: [{ id: 'a', objective: 'write a.txt', after: [] }],
      runs: { a: 'runs/a.jsonl' },
      process: null,
    };
    mkdirSync(folder, { recursive: true });
    const recording = join(folder, 'batch.jsonl');
    writeFileSync(recording, `${JSON.stringify(header)}\n`);
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--resume', recording], {
      cwd: repo,
      env: { ...process.env, LOG: join(side, 'agents.log') },
    });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `ralph batch --resume ${recording}: its batch id "a..b" cannot name a git branch: it contains ".."`,
    );
    expect(gitIn(repo, 'branch', '--list', 'ralph/*')).toBe('');
    expect(readdirSync(folder)).not.toContain('runs');
    expect(existsSync(join(side, 'agents.log'))).toBe(false);
  }, 60_000);
});
