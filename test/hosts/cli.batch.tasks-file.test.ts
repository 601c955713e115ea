import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
/** A database no test reaches: what `ralph submit` refuses is refused before it is asked. */
const NO_DATABASE = 'postgres://ralph@127.0.0.1:1/none';

/** A repository, a folder beside it for the tasks file and what the agents leave, and the agents' log. */
function setup() {
  const repo = tempRepo();
  const side = tempFolder('ralph-batch-trust-');
  const log = join(side, 'agents.log');
  const env = { ...process.env, BATCH_AGENT_LOG: log };
  const agentLines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { repo, side, env, agentLines };
}

/** The batch's target branch as the summary names it. */
const targetOf = (stdout: string): string => /^target (\S+);/m.exec(stdout)?.[1] ?? '';

/** `ralph submit --batch` of the file onto the repository, to a database no test reaches. */
const submitBatch = (tasksFile: string, repo: string) =>
  ralph([
    'submit',
    '--batch',
    tasksFile,
    '--repo',
    `file://${repo}`,
    '--agent',
    'claude',
    '--database-url',
    NO_DATABASE,
  ]);

/** A one-task checklist whose task has `lines` detail lines (" x" each, 3 bytes a line). */
const checklistWithDetail = (lines: number): string => `- [ ] write a.txt a\n${' x\n'.repeat(lines)}`;

describe('a tasks file names no command of its own without --trust-tasks', () => {
  test("a task's agent command and verify command are refused (exit 2), each named, and never run", async () => {
    const { repo, side, env, agentLines } = setup();
    const pwned = join(side, 'PWNED');
    const verified = join(side, 'VERIFIED');
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(
      tasksFile,
      JSON.stringify([
        { id: 'a', objective: 'write a.txt a', agent: `sh -c 'touch ${pwned}'` },
        { id: 'b', objective: 'write b.txt b', verify: `sh -c 'touch ${verified}'` },
      ]),
    );
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toBe(
      [
        `ralph batch: the tasks file ${tasksFile} names commands to run; nothing was started`,
        'Its tasks would run:',
        `  task "a" agent: ${JSON.stringify(`sh -c 'touch ${pwned}'`)}`,
        `  task "b" verify: ${JSON.stringify(`sh -c 'touch ${verified}'`)}`,
        'Pass --trust-tasks to run them (trust a tasks file as you would a script), or take them out of the file: ' +
          '--agent-command and --verify on the command line hold for every task.',
        '',
      ].join('\n'),
    );
    expect(existsSync(pwned)).toBe(false);
    expect(existsSync(verified)).toBe(false);
    expect(agentLines()).toEqual([]);
    expect(gitIn(repo, 'branch', '--list', 'ralph/*')).toBe('');

    // With --trust-tasks the file's own command is the task's agent: it runs (and, reporting nothing, fails the task).
    const trusted = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--trust-tasks'],
      {
        cwd: repo,
        env,
      },
    );
    expect(trusted.code, trusted.stdout + trusted.stderr).toBe(1);
    expect(existsSync(pwned)).toBe(true);
    expect(trusted.stdout).toMatch(/^a: failed/m);
  }, 60_000);

  test("the command line's agent wins over a preset a task names; --trust-tasks lets the file's preset apply", async () => {
    const { repo, side, env } = setup();
    const tasksFile = join(side, 'tasks.yaml');
    writeFileSync(tasksFile, '- {id: a, objective: write a.txt a, agent: codex}\n');
    const missingCodex = join(side, 'no-codex-here');
    const args = ['batch', tasksFile, '--agent-command', AGENT, '--codex-path', missingCodex, '--cwd', repo];
    const run = await ralph(args, { cwd: repo, env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'ralph batch: --agent-command on the command line wins over the agent the tasks file names for task "a" ' +
        '(codex) (--trust-tasks lets the file choose)\n',
    );
    expect(run.stderr).not.toContain('ralph batch: ralph batch:');
    expect(gitIn(repo, 'show', `${targetOf(run.stdout)}:a.txt`)).toBe('a');
    // Trusted, the task's codex is its agent: with no codex at that path, the batch is refused before it starts.
    const trusted = await ralph([...args, '--trust-tasks'], { cwd: repo, env });
    expect(trusted.code, trusted.stdout + trusted.stderr).toBe(2);
    expect(trusted.stderr).toContain(missingCodex);
  }, 60_000);

  test('ralph submit --batch refuses the same before anything is tagged on the remote or queued (exit 2)', async () => {
    const { repo, side } = setup();
    const remote = join(side, 'remote.git');
    gitIn(side, 'clone', '--quiet', '--bare', repo, remote);
    const pwned = join(side, 'PWNED');
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(tasksFile, JSON.stringify([{ id: 'a', objective: 'x', agent: `sh -c 'touch ${pwned}'` }]));
    const submit = await submitBatch(tasksFile, remote);
    expect(submit.code, submit.stderr).toBe(2);
    expect(submit.stdout).toBe('');
    expect(submit.stderr).toContain(
      `ralph submit --batch: the tasks file ${tasksFile} names commands to run; nothing was submitted\n` +
        `Its tasks would run:\n  task "a" agent: ${JSON.stringify(`sh -c 'touch ${pwned}'`)}\n`,
    );
    expect(gitIn(remote, 'tag', '--list')).toBe('');
    const stray = await ralph([
      'submit',
      'x',
      '--agent',
      'claude',
      '--trust-tasks',
      '--database-url',
      NO_DATABASE,
    ]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toBe(
      'ralph submit --trust-tasks is for --batch: it trusts the commands a tasks file names\n',
    );
  }, 60_000);
});

describe("a tasks file's size", () => {
  test('a task with 300,000 detail lines runs: its detail is in its objective, and the call stack holds', async () => {
    const { repo, side, env } = setup();
    const tasksFile = join(side, 'TASKS.md');
    writeFileSync(tasksFile, checklistWithDetail(300_000));
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.stderr).not.toContain('internal error');
    expect(run.code, run.stdout + run.stderr.slice(0, 2000)).toBe(0);
    expect(gitIn(repo, 'show', `${targetOf(run.stdout)}:a.txt`)).toBe('a');
  }, 60_000);

  test('a tasks file over 1 MiB is refused (exit 2) before anything starts, by ralph batch and ralph submit --batch', async () => {
    const { repo, side, env, agentLines } = setup();
    const tasksFile = join(side, 'TASKS.md');
    writeFileSync(tasksFile, checklistWithDetail(400_000));
    const run = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo], {
      cwd: repo,
      env,
    });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toBe(
      `ralph batch: the tasks file ${tasksFile} is refused: it is larger than 1 MiB (1,048,576 bytes), the most a tasks file may hold\n`,
    );
    expect(agentLines()).toEqual([]);
    expect(gitIn(repo, 'branch', '--list', 'ralph/*')).toBe('');
    const submit = await submitBatch(tasksFile, repo);
    expect(submit.code).toBe(2);
    expect(submit.stderr).toBe(
      `ralph submit --batch: the tasks file ${tasksFile} is refused: it is larger than 1 MiB (1,048,576 bytes), the most a tasks file may hold\n`,
    );
  }, 60_000);
});
