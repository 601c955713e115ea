import type { PullTask } from '../../src/github/pull-landing.js';

/** The commit a task's pull request says ralph pushed, in the tests of pull requests. */
export const PUSHED = 'a'.repeat(40);

/** A task that passed, from issue 7, as a pull request lands it; `change` changes any of it. */
export function pullTask(change: Partial<PullTask> = {}): PullTask {
  return {
    batchId: '20261201-1522-a1b2c3',
    taskId: 'gh-7',
    outcome: 'passed',
    why: null,
    report: 'Added the parser and its tests.',
    verify: { command: 'npm test', passed: true, output: '12 passed' },
    evaluator: { accepted: true, verdict: 'The parser does what the issue asks.' },
    rounds: 3,
    costUsd: 0.42,
    reportUrl: 'https://ci.test/batch/report.html',
    recording: '.git/ralph/batches/20261201-1522-a1b2c3/batch.jsonl',
    issue: 7,
    pullBranch: 'ralph/gh-7',
    pushed: PUSHED,
    branch: 'ralph/20261201-1522-a1b2c3/gh-7',
    base: 'main',
    title: 'Parse the config',
    ...change,
  };
}
