import { describeChangedFiles } from '../contract/changed-files.js';
import { usageText } from '../contract/usage.js';
import type { RunModelEvaluation } from '../inspect/run-model.js';
import { escapeHtml, formatDuration } from './report-page-text.js';

/** What became of an evaluation, in words beside its badge. */
const OUTCOME_TEXTS: Record<RunModelEvaluation['outcome'], { badge: string; text: string }> = {
  running: { badge: 'checking', text: 'is checking the reported completion in the workspace' },
  accept: { badge: 'accepted', text: 'accepted the reported completion' },
  reject: { badge: 'rejected', text: 'rejected the reported completion' },
  failed: {
    badge: 'failed',
    text: 'gave no verdict the run could take: the workflow failed (see the error)',
  },
  stopped: { badge: 'stopped', text: 'was stopped before its verdict (see the result)' },
  cancelled: { badge: 'cancelled', text: 'was cancelled before its verdict' },
};

function items(title: string, entries: readonly string[], none?: string): string {
  if (entries.length === 0)
    return none === undefined ? '' : `<h4>${title}</h4><p class="none">${escapeHtml(none)}</p>`;
  return `<h4>${title}</h4><ul>${entries.map((entry) => `<li>${escapeHtml(entry)}</li>`).join('')}</ul>`;
}

/**
 * A round's evaluation as its entry on the run page shows it: the evaluator, its verdict with the findings and the
 * evidence, what it changed in the workspace when that failed the run, its child and what it used.
 */
export function evaluationBlock(round: number, evaluation: RunModelEvaluation): string {
  const { badge, text } = OUTCOME_TEXTS[evaluation.outcome];
  const took =
    evaluation.endedAt === null ? '' : `, in ${formatDuration(evaluation.endedAt - evaluation.startedAt)}`;
  let html =
    `<section class="evaluation verdict-${evaluation.outcome}" id="evaluation-${round}">` +
    `<h4>Independent evaluation</h4>` +
    `<p class="verdict"><span class="badge verdict-${evaluation.outcome}">${badge}</span> ` +
    `The evaluator <code>${escapeHtml(evaluation.evaluator)}</code> ${text}${took}.</p>`;
  if (evaluation.verdict !== null) {
    html += items('Findings', evaluation.verdict.findings, 'none');
    html += items('Evidence', evaluation.verdict.evidence, 'none');
  }
  if (evaluation.changedFiles.length > 0) {
    html +=
      `<h4>Changed files</h4><p class="changed">It changed the workspace, which an evaluator must not do: ` +
      `${escapeHtml(describeChangedFiles(evaluation.changedFiles))}</p>`;
  }
  html += `<p class="child">Evaluator child <code>${evaluation.childId === null ? 'not started' : escapeHtml(evaluation.childId)}</code>`;
  if (evaluation.usage !== null) html += `, used ${escapeHtml(usageText(evaluation.usage))}`;
  return `${html}</p></section>`;
}
