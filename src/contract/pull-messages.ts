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
  /** The issue the task came from. */
  issue: number | null;
}

/** The hidden marker of a task's pull request: how a re-run finds it among the pulls of its head branch. */
export const pullMarker = (batchId: string, taskId: string): string =>
  `<!-- ralph-task: ${batchId}/${taskId} -->`;

/** The hidden marker of a task's comment on its issue, one per outcome: a re-run with the same outcome says nothing. */
export const issueCommentMarker = (batchId: string, taskId: string, outcome: PullOutcome): string =>
  `<!-- ralph-issue: ${batchId}/${taskId} ${outcome} -->`;

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
  if (task.reportUrl !== null) lines.push(`Run report: ${task.reportUrl}`);
  if (passed && task.issue !== null) lines.push('', `Closes #${task.issue}`);
  lines.push('', pullMarker(task.batchId, task.taskId));
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
  if (task.reportUrl !== null) lines.push(`Run report: ${task.reportUrl}`);
  lines.push('', issueCommentMarker(task.batchId, task.taskId, task.outcome));
  return `${lines.join('\n')}\n`;
}
