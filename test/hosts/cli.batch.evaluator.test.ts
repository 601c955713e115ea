import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';

// Issue 31, item 5: `ralph batch --evaluator`: a task joins the merge queue only after its evaluator accepted the
// completion its worker reported; a task whose completions are rejected up to its round cap ends budget-limited and
// does not land. The evaluator runs in the task's own worktree.

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);
const JUDGE = quote([process.execPath, fixture('need-judge.mjs')]);

/** The batch's target branch and id as the summary names them. */
const targetOf = (stdout: string): string => /^target (\S+);/m.exec(stdout)?.[1] ?? '';
const batchIdOf = (stdout: string): string => /--rollback (\S+)$/m.exec(stdout)?.[1] ?? '';

/** Two tasks: one whose first completion lacks b.txt (its worker adds it on the finding), one whose worker lies. */
const TASKS = [
  { id: 'honest', objective: 'write a.txt a\nneed a.txt\nneed b.txt\nfix-findings' },
  { id: 'liar', objective: 'the liar: claims complete, writes nothing\nneed c.txt' },
];

describe('ralph batch --evaluator-command', () => {
  test('a task lands once the evaluator accepted (after one rejection); a lying task rejected to the cap ends budget-limited and does not land', async () => {
    const { repo, tasksFile, env } = batchScene(TASKS);
    const judgeLog = join(tempFolder('ralph-batch-judge-'), 'judge.log');
    const out = await ralph(
      [
        'batch',
        tasksFile,
        '--agent-command',
        AGENT,
        '--evaluator-command',
        JUDGE,
        '--max-rounds',
        '2',
        '--cwd',
        repo,
      ],
      { cwd: repo, env: { ...env, JUDGE_LOG: judgeLog } },
    );

    expect(out.code, out.stderr).toBe(1);
    const target = targetOf(out.stdout);
    const batchId = batchIdOf(out.stdout);
    expect(out.stdout).toContain('honest: landed\n');
    expect(out.stdout).toContain(
      'liar: failed: budget-limited: the evaluator command-evaluator rejected the completion reported in round 2: c.txt is missing\n',
    );
    // The progress says each verdict, per task and round.
    expect(out.stderr).toContain('ralph batch: honest: round 1/2 evaluator rejected: 1 finding\n');
    expect(out.stderr).toContain('ralph batch: honest: round 2/2 evaluator accepted: 3 pieces of evidence\n');
    expect(out.stderr).toContain('ralph batch: liar: round 2/2 evaluator rejected: 1 finding\n');
    // Queued only after the accept: the accept comes before the task joins the merge queue.
    const stderr = out.stderr;
    expect(stderr.indexOf('honest: round 2/2 evaluator accepted')).toBeLessThan(
      stderr.indexOf('honest: loop complete; queued for the merge queue'),
    );
    expect(stderr).not.toContain('liar: loop complete');

    // The target holds the honest task's work (b.txt written on the evaluator's finding), none of the liar's.
    const landed = gitIn(repo, 'ls-tree', '--name-only', target).split('\n');
    expect(landed).toEqual(expect.arrayContaining(['a.txt', 'b.txt']));
    expect(gitIn(repo, 'log', '--format=%s', target)).not.toContain('liar');

    // Every evaluation ran in its task's own worktree: two of the honest task (reject, accept), two of the liar's.
    const folder = join(repo, '.git', 'ralph', 'batches', batchId);
    const verdicts = readFileSync(judgeLog, 'utf8').split('\n').filter(Boolean).sort();
    expect(verdicts).toEqual(
      [
        `accept ${join(folder, 'honest')}`,
        `reject ${join(folder, 'honest')}`,
        `reject ${join(folder, 'liar')}`,
        `reject ${join(folder, 'liar')}`,
      ].sort(),
    );

    // The batch's page says each task's last verdict beside its outcome.
    const recording = join(folder, 'batch.jsonl');
    const page = join(folder, 'batch.html');
    const report = await ralph(['report', recording, '-o', page]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(
      '<div class="evaluation verdict-accept">Evaluator command-evaluator accepted the completion reported in round 2</div>',
    );
    expect(html).toContain(
      '<div class="evaluation verdict-reject">Evaluator command-evaluator rejected the completion reported in round 2: c.txt is missing</div>',
    );
  }, 90_000);

  test('both evaluator options are refused (exit 2) before any loop starts', async () => {
    const { repo, tasksFile, env, agentLines } = batchScene(TASKS);
    const out = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--evaluator', 'codex', '--evaluator-command', JUDGE],
      { cwd: repo, env },
    );

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      'ralph: use either --evaluator or --evaluator-command, not both: a run has one evaluator',
    );
    expect(agentLines()).toEqual([]);
    expect(existsSync(join(repo, '.git', 'ralph'))).toBe(false);
  });

  test('a tasks file cannot name an evaluator: the evaluator is the command line’s, for every task', async () => {
    const { repo, tasksFile, env, agentLines } = batchScene([
      { id: 'a', objective: 'write a.txt a', evaluator: 'node accept-everything.mjs' },
    ]);
    const out = await ralph(['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks'], {
      cwd: repo,
      env,
    });

    expect(out.code).toBe(2);
    expect(out.stderr).toContain('evaluator');
    expect(agentLines()).toEqual([]);
  });
});
