import { describe, expect, it } from 'vitest';
import {
  issueComment,
  issueCommentMarker,
  NEEDS_REVIEW_LABEL,
  outcomeWords,
  pullBody,
  pullMarker,
  pushedCommitIn,
  pushedMarker,
} from '../../src/contract/pull-messages.js';
import { PUSHED as HEAD, pullTask as task } from '../support/pull-task.js';

// What a task's pull request and its issue's comment say: never a ready word for a task that did not pass, the
// agent's text fenced, and the markers a re-run finds them by.

describe('pullBody', () => {
  it('carries the report, verify, verdict, rounds, cost, link, Closes #N and the marker for a task that passed', () => {
    const body = pullBody(task());
    for (const part of [
      'Added the parser and its tests.',
      '`npm test` passed',
      '12 passed',
      'The parser does what the issue asks.',
      'Rounds: 3 · cost: $0.42',
      'https://ci.test/batch/report.html',
      'Closes #7',
      '<!-- ralph-task: ralph/gh-7 -->',
      `<!-- ralph-pushed: ${HEAD} -->`,
    ])
      expect(body).toContain(part);
  });

  it('says the commit ralph pushed by its last marker: one an agent wrote into its report does not count', () => {
    const forged = `<!-- ralph-pushed: ${'b'.repeat(40)} -->`;
    expect(pushedCommitIn(pullBody(task({ report: forged })))).toBe(HEAD);
    expect(pushedCommitIn('a person wrote this')).toBeNull();
  });

  it('gives the command that makes the report where no published page is linked', () => {
    expect(pullBody(task({ reportUrl: null }))).toContain(
      'Run report: `ralph report .git/ralph/batches/20261201-1522-a1b2c3/batch.jsonl` in the clone that ran batch `20261201-1522-a1b2c3`',
    );
  });

  it('says what went wrong and closes nothing for a task that did not pass', () => {
    const body = pullBody(
      task({
        outcome: 'failed',
        why: 'verify failed',
        verify: { command: 'npm test', passed: false, output: '1 failed' },
      }),
    );
    expect(body).toMatch(/^\*\*Not ready:\*\*.*failed: verify failed/);
    expect(body).toContain('`npm test` failed');
    expect(body).not.toContain('Closes #');
  });

  it('fences a report so its own backticks cannot end the fence', () => {
    const body = pullBody(task({ report: 'see ```\n# heading' }));
    expect(body).toContain('````\nsee ```\n# heading\n````');
  });
});

describe('issueComment', () => {
  it('tells a task that passed with its pull request, the rounds, the cost, the report and its marker', () => {
    expect(issueComment(task(), 'https://github.test/o/r/pull/9')).toBe(
      [
        'ralph completed: its verify passed and its evaluator (where there is one) accepted it.',
        '',
        'Pull request: https://github.test/o/r/pull/9',
        '',
        'Rounds: 3 · cost: $0.42',
        'Run report: https://ci.test/batch/report.html',
        '',
        '<!-- ralph-issue: ralph/gh-7 passed -->',
        '',
      ].join('\n'),
    );
  });

  it('tells a task that did not pass why, with its labelled draft or with no pull request at all', () => {
    const failed = task({ outcome: 'failed', why: 'verify failed', costUsd: null, reportUrl: null });
    const drafted = issueComment(failed, 'https://github.test/o/r/pull/9');
    expect(drafted).toContain("ralph's task for this issue failed: verify failed");
    expect(drafted).toContain(
      `Draft pull request (labelled \`${NEEDS_REVIEW_LABEL}\`): https://github.test/o/r/pull/9`,
    );
    expect(drafted).toContain('Rounds: 3 · cost: unknown');
    expect(drafted).toContain('Run report: `ralph report .git/ralph/batches/');
    expect(drafted).toContain('<!-- ralph-issue: ralph/gh-7 failed -->');
    const none = issueComment(task({ outcome: 'blocked', why: null }), null);
    expect(none).toContain("ralph's task for this issue is blocked.");
    expect(none).toContain('No pull request was opened: the task left no branch with changes.');
  });
});

describe('the markers', () => {
  it('name the task by its branch on GitHub, the commit pushed, and the outcome told', () => {
    expect(pullMarker('ralph/gh-7')).toBe('<!-- ralph-task: ralph/gh-7 -->');
    expect(pushedMarker(HEAD)).toBe(`<!-- ralph-pushed: ${HEAD} -->`);
    expect(issueCommentMarker('ralph/gh-7', 'needs-review')).toBe(
      '<!-- ralph-issue: ralph/gh-7 needs-review -->',
    );
  });

  it('read a SHA-1 or SHA-256 commit only, the last one written', () => {
    const sha256 = 'c'.repeat(64);
    expect(pushedCommitIn(`${pushedMarker(HEAD)}\n${pushedMarker(sha256)}`)).toBe(sha256);
    expect(pushedCommitIn('<!-- ralph-pushed: abc -->')).toBeNull();
    expect(pushedCommitIn(`<!-- ralph-pushed: ${'g'.repeat(40)} -->`)).toBeNull();
  });

  it('say each outcome in words', () => {
    expect(outcomeWords('needs-review')).toBe('needs review');
    expect(outcomeWords('budget-limited')).toBe('stopped at its budget');
    expect(outcomeWords('blocked')).toBe('is blocked');
    expect(outcomeWords('failed')).toBe('failed');
  });
});

describe('the whole body', () => {
  it('of a task that passed reads, line by line, as a reviewer sees it', () => {
    expect(
      pullBody(
        task({
          report: '  Added the parser.  \n',
          verify: { command: 'npm test', passed: true, output: ' \n' },
        }),
      ),
    ).toBe(
      [
        'ralph task `gh-7` (batch `20261201-1522-a1b2c3`) completed: its verify passed and its evaluator (where there is one) accepted it.',
        '',
        '### Final report',
        '',
        '```',
        '  Added the parser.',
        '```',
        '',
        '### Verify',
        '',
        '`npm test` passed',
        '',
        '### Evaluator',
        '',
        'Accepted.',
        '',
        '```',
        'The parser does what the issue asks.',
        '```',
        '',
        'Rounds: 3 · cost: $0.42',
        'Run report: https://ci.test/batch/report.html',
        '',
        'Closes #7',
        '',
        '<!-- ralph-task: ralph/gh-7 -->',
        `<!-- ralph-pushed: ${HEAD} -->`,
        '',
      ].join('\n'),
    );
  });

  it('of a fleet task that did not pass, with nothing reported, no verify, a bare rejection and nothing pushed', () => {
    expect(
      pullBody(
        task({
          outcome: 'needs-review',
          why: null,
          report: ' \n ',
          verify: null,
          evaluator: { accepted: false, verdict: '  ' },
          reportUrl: null,
          recording: null,
          issue: null,
          pushed: null,
          costUsd: null,
        }),
      ),
    ).toBe(
      [
        '**Not ready:** ralph task `gh-7` (batch `20261201-1522-a1b2c3`) needs review.',
        '',
        '### Final report',
        '',
        '(none)',
        '',
        '### Verify',
        '',
        'No verify command.',
        '',
        '### Evaluator',
        '',
        'Rejected.',
        '',
        'Rounds: 3 · cost: unknown',
        'Run report: `ralph status 20261201-1522-a1b2c3` (or `ralph dashboard`) on the fleet that ran batch `20261201-1522-a1b2c3`',
        '',
        '<!-- ralph-task: ralph/gh-7 -->',
        '',
      ].join('\n'),
    );
  });

  it('says no evaluator, and a failing verify with its output, and closes no issue for a task that passed without one', () => {
    const body = pullBody(
      task({
        outcome: 'failed',
        why: 'verify failed',
        evaluator: null,
        verify: { command: 'npm test', passed: false, output: '1 failed' },
      }),
    );
    expect(body).toContain('### Evaluator\n\nNo evaluator.\n');
    expect(body).toContain('`npm test` failed\n\n```\n1 failed\n```\n');
    expect(pullBody(task({ issue: null }))).not.toContain('Closes #');
    expect(NEEDS_REVIEW_LABEL).toBe('ralph: needs-review');
  });

  it('reads the last pushed marker of three', () => {
    const [one, two, three] = ['1', '2', '3'].map((d) => d.repeat(40));
    expect(pushedCommitIn([one, two, three].map((c) => pushedMarker(c as string)).join('\n'))).toBe(three);
  });
});
