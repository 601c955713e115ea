/**
 * The texts ralph leaves on GitHub when a batch lands as pull requests (`ralph batch --land pr`): a pull request's
 * body and the comment on the issue a task came from. Each carries a hidden marker, so a re-run finds what it left
 * and updates it rather than open or say it twice.
 */

/** What became of a task, as its pull request and issue comment tell it. */
export type PullOutcome = 'passed' | 'needs-review' | 'failed' | 'budget-limited' | 'blocked';

/** The label of a draft pull request whose task did not pass. */
export const NEEDS_REVIEW_LABEL = 'ralph: needs-review';

/** What a pull request's body and an issue's comment say of a task. */
export interface PullReport {
  batchId: string;
  taskId: string;
  outcome: PullOutcome;
  /** What went wrong, for a task that did not pass (null when it passed). */
  why: string | null;
  /** The task's final report, as its last round wrote it. */
  report: string;
  verify: { command: string; passed: boolean; output: string } | null;
  evaluator: { accepted: boolean; verdict: string } | null;
  rounds: number;
  costUsd: number | null;
  /** A link to the run's report, when there is one to link to. */
  reportUrl: string | null;
  /**
   * Where the batch's recording is, relative to the clone that ran it: its report is `ralph report <path>` there;
   * null for a fleet's batch, whose runs the fleet's database holds (`ralph status`, `ralph dashboard`).
   */
  recording: string | null;
  /** The issue the task came from. */
  issue: number | null;
  /** The branch on GitHub the task's pull request comes from, the same in every batch that runs the task. */
  pullBranch: string;
  /** The commit ralph pushed there (null: nothing pushed), so a re-run overwrites only its own push. */
  pushed: string | null;
}

/**
 * The hidden marker of a task's pull request, by its branch on GitHub (the same in every batch that runs the task):
 * how a re-run, of this batch or a later one, finds it among the pulls of that branch.
 */
export const pullMarker = (pullBranch: string): string => `<!-- ralph-task: ${pullBranch} -->`;

/** The hidden marker of the commit ralph pushed last to a task's branch: a re-run overwrites that commit and no other. */
export const pushedMarker = (commit: string): string => `<!-- ralph-pushed: ${commit} -->`;

/**
 * The commit a pull request's body says ralph pushed last, or null when it says none. The last marker counts: ralph
 * writes its own after the report and the verify output, which an agent wrote and may have filled with markers.
 */
export function pushedCommitIn(body: string): string | null {
  const found = [...body.matchAll(/<!-- ralph-pushed: ([0-9a-f]{40}|[0-9a-f]{64}) -->/g)].at(-1);
  return found === undefined ? null : (found[1] as string);
}

/**
 * The hidden marker of a task's comment on its issue, one per outcome: a re-run (of any batch) with the same outcome
 * says nothing new.
 */
export const issueCommentMarker = (pullBranch: string, outcome: PullOutcome): string =>
  `<!-- ralph-issue: ${pullBranch} ${outcome} -->`;

const OUTCOME_WORDS: Record<PullOutcome, string> = {
  passed: 'completed: its verify passed and its evaluator (where there is one) accepted it',
  'needs-review': 'needs review',
  failed: 'failed',
  'budget-limited': 'stopped at its budget',
  blocked: 'is blocked',
};

/** A task's outcome as a sentence's end: `needs review`, `failed` … */
export const outcomeWords = (outcome: PullOutcome): string => OUTCOME_WORDS[outcome];

/** Text fenced so that nothing in it (a report, a verify's output) can close the fence and become markdown. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text.trimEnd()}\n${fence}`;
}

const cost = (usd: number | null): string => (usd === null ? 'unknown' : `$${usd.toFixed(2)}`);

/** Where the run's report is: its published page, else the command that makes it in the clone that ran the batch. */
const reportLine = (task: PullReport): string => {
  if (task.reportUrl !== null) return `Run report: ${task.reportUrl}`;
  if (task.recording === null)
    return `Run report: \`ralph status ${task.batchId}\` (or \`ralph dashboard\`) on the fleet that ran batch \`${task.batchId}\``;
  return `Run report: \`ralph report ${task.recording}\` in the clone that ran batch \`${task.batchId}\``;
};

/** The body of a task's pull request: the outcome, report, verify, evaluator, rounds, cost, report link and marker. */
export function pullBody(task: PullReport): string {
  const lines: string[] = [];
  const passed = task.outcome === 'passed';
  lines.push(
    passed
      ? `ralph task \`${task.taskId}\` (batch \`${task.batchId}\`) ${outcomeWords(task.outcome)}.`
      : `**Not ready:** ralph task \`${task.taskId}\` (batch \`${task.batchId}\`) ${outcomeWords(task.outcome)}` +
          `${task.why === null ? '.' : `: ${task.why}`}`,
  );
  lines.push('', '### Final report', '', task.report.trim() === '' ? '(none)' : fenced(task.report));
  lines.push('', '### Verify', '');
  if (task.verify === null) lines.push('No verify command.');
  else {
    lines.push(`\`${task.verify.command}\` ${task.verify.passed ? 'passed' : 'failed'}`);
    if (task.verify.output.trim() !== '') lines.push('', fenced(task.verify.output));
  }
  lines.push('', '### Evaluator', '');
  if (task.evaluator === null) lines.push('No evaluator.');
  else {
    lines.push(task.evaluator.accepted ? 'Accepted.' : 'Rejected.');
    if (task.evaluator.verdict.trim() !== '') lines.push('', fenced(task.evaluator.verdict));
  }
  lines.push('', `Rounds: ${task.rounds} · cost: ${cost(task.costUsd)}`);
  lines.push(reportLine(task));
  if (passed && task.issue !== null) lines.push('', `Closes #${task.issue}`);
  lines.push('', pullMarker(task.pullBranch));
  if (task.pushed !== null) lines.push(pushedMarker(task.pushed));
  return `${lines.join('\n')}\n`;
}

/** The comment on a task's issue: its outcome and, when there is one, its pull request. */
export function issueComment(task: PullReport, pullUrl: string | null): string {
  const said =
    task.outcome === 'passed'
      ? `ralph ${outcomeWords(task.outcome)}.`
      : `ralph's task for this issue ${outcomeWords(task.outcome)}${task.why === null ? '.' : `: ${task.why}`}`;
  const where =
    pullUrl === null
      ? 'No pull request was opened: the task left no branch with changes.'
      : task.outcome === 'passed'
        ? `Pull request: ${pullUrl}`
        : `Draft pull request (labelled \`${NEEDS_REVIEW_LABEL}\`): ${pullUrl}`;
  const lines = [said, '', where, '', `Rounds: ${task.rounds} · cost: ${cost(task.costUsd)}`];
  lines.push(reportLine(task));
  lines.push('', issueCommentMarker(task.pullBranch, task.outcome));
  return `${lines.join('\n')}\n`;
}
