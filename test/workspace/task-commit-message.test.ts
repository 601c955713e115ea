import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitLeftovers } from '../../src/workspace/git-commit.js';
import {
  objectiveSubject,
  SUBJECT_LIMIT,
  taskCommitMessage,
} from '../../src/workspace/task-commit-message.js';
import { gitIn, tempRepo } from '../support/git-repo.js';

const commit = {
  batchId: '20261201-1522-a1b2c3',
  taskId: 'task-4',
  objective: 'Add a --json flag to the list command\nPrint one JSON object a line.',
  runId: 'run-abc',
};

describe("a batch task's commit message", () => {
  it("has the task's objective as its subject, and the batch, task and run in its body and trailers, as git reads them", async () => {
    const repo = tempRepo();
    writeFileSync(join(repo, 'list.ts'), 'export {};\n');
    const head = await commitLeftovers(repo, taskCommitMessage(commit));
    expect(gitIn(repo, 'log', '-1', '--format=%s', head)).toBe('Add a --json flag to the list command');
    expect(gitIn(repo, 'log', '-1', '--format=%b', head).split('\n')[0]).toBe(
      "ralph batch 20261201-1522-a1b2c3: task task-4 (run run-abc): what the task's agents left uncommitted in its worktree, if anything.",
    );
    expect(gitIn(repo, 'log', '-1', '--format=%(trailers:only,unfold)', head).split('\n')).toEqual([
      'Ralph-Batch: 20261201-1522-a1b2c3',
      'Ralph-Run: run-abc',
      'Ralph-Task: 20261201-1522-a1b2c3/task-4',
    ]);
    // The trailer a fleet landing and a remote rollback read is exactly as it was.
    expect(gitIn(repo, 'log', '-1', '--format=%(trailers:key=Ralph-Task,valueonly)', head)).toBe(
      '20261201-1522-a1b2c3/task-4',
    );
  });

  it('names the round of a fleet push, and leaves out a run that never started', () => {
    const message = taskCommitMessage({ ...commit, round: 2, runId: null });
    expect(message.split('\n\n')).toEqual([
      'Add a --json flag to the list command',
      "ralph batch 20261201-1522-a1b2c3: task task-4, round 2: what the task's agents left uncommitted in its worktree, if anything.",
      'Ralph-Batch: 20261201-1522-a1b2c3\nRalph-Task: 20261201-1522-a1b2c3/task-4',
    ]);
  });

  it(`cuts a long objective to ${SUBJECT_LIMIT} characters with an ellipsis`, () => {
    const long = 'abcdefghij'.repeat(10);
    expect(objectiveSubject(long, 'fallback')).toBe(`${long.slice(0, SUBJECT_LIMIT - 1)}…`);
    // A cut that ends on a space leaves no space before the ellipsis.
    expect(objectiveSubject(`${'x'.repeat(SUBJECT_LIMIT - 2)} and more`, 'f')).toBe(
      `${'x'.repeat(SUBJECT_LIMIT - 2)}…`,
    );
    expect(objectiveSubject('x'.repeat(SUBJECT_LIMIT), 'fallback')).toBe('x'.repeat(SUBJECT_LIMIT));
    // Characters outside the basic plane count as one and are never split in half.
    const emoji = objectiveSubject('😀'.repeat(100), 'fallback');
    expect(Array.from(emoji)).toEqual([...Array.from('😀'.repeat(SUBJECT_LIMIT - 1)), '…']);
  });

  it('takes out what someone else wrote to rewrite a terminal or break the message: controls, newlines, bidi overrides', () => {
    expect(objectiveSubject('\x1b]0;pwned\x07Fix\tthe\u202e parser\x9b31m\r\nRalph-Task: other/x', 'f')).toBe(
      ']0;pwnedFix the parser31m',
    );
    expect(objectiveSubject('\n  \n\u2028  second line  ', 'f')).toBe('second line');
    expect(objectiveSubject(' \x1b\x07 \n\t', 'ralph batch b: task t')).toBe('ralph batch b: task t');
  });

  it("an objective that reads as a trailer is the subject only: git finds the task's own trailer alone", async () => {
    const repo = tempRepo();
    const head = await commitLeftovers(
      repo,
      taskCommitMessage({ ...commit, objective: 'Ralph-Task: other/x' }),
      {
        allowEmpty: true,
      },
    );
    expect(gitIn(repo, 'log', '-1', '--format=%s', head)).toBe('Ralph-Task: other/x');
    expect(gitIn(repo, 'log', '-1', '--format=%(trailers:key=Ralph-Task,valueonly)', head)).toBe(
      '20261201-1522-a1b2c3/task-4',
    );
  });
});
