import { firstLine, type NextStep, nextStepHtml, type TaskOutcome } from './batch-outcome.js';
import { escapeHtml } from './report-page-text.js';

/** A batch task's run page says how the task ended for its batch, beside how its run ended. */
export interface RunPageBatch {
  batchId: string;
  outcome: TaskOutcome;
  /** The batch's note on the task: why it needs review, failed or was skipped (its later lines quoted). */
  note: string | null;
  /** The task's branch, its worktree (null once removed), and the commit it landed as (null when not landed or not known). */
  branch: string;
  worktree: string | null;
  commit: string | null;
  nextStep: NextStep | null;
  /** The batch's page, relative to the run page. */
  batchPage: string;
}

/** The badge beside the run's own status: the batch outcome's first words (`Batch: Needs review`). */
export function batchBadge(batch: RunPageBatch): string {
  const short = batch.outcome.label.split(':')[0] ?? batch.outcome.label;
  return (
    `<span class="badge tone-${batch.outcome.tone}" id="batch-outcome" title="${escapeHtml(batch.outcome.label)}">` +
    `Batch: ${escapeHtml(firstLine(short, 60))}</span>`
  );
}

/** The card under the title: the batch outcome whole, where the task's work is, and what to do next. */
export function batchCard(batch: RunPageBatch): string {
  const rest = batch.note === null ? '' : batch.note.split('\n').slice(1).join('\n').trim();
  const fact = (name: string, value: string | null) =>
    value === null
      ? ''
      : `<div class="fact"><dt>${name}</dt><dd><code>${escapeHtml(value)}</code></dd></div>`;
  const where =
    fact('Branch', batch.branch) + fact('Worktree', batch.worktree) + fact('Landed as', batch.commit);
  return (
    `<section class="card ending tone-${batch.outcome.tone}" id="batch"><h2>In batch ${escapeHtml(batch.batchId)}</h2>` +
    `<p class="label" id="batch-outcome-line">${escapeHtml(batch.outcome.label)}</p>` +
    (rest === '' ? '' : `<pre class="text">${escapeHtml(rest)}</pre>`) +
    `<dl class="facts">${where}</dl>` +
    (batch.nextStep === null ? '' : `<h3>Next step</h3><p class="step">${nextStepHtml(batch.nextStep)}</p>`) +
    `<p><a href="${escapeHtml(batch.batchPage)}">The batch's page</a>: every task of batch ${escapeHtml(batch.batchId)}.</p></section>`
  );
}
