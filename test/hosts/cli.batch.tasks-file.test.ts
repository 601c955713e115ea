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
