import { formatDuration as formatWait } from '../contract/duration.js';
import type { RunModelQuestion } from '../inspect/run-model.js';
import { escapeHtml, formatDuration } from './report-page-text.js';

/** What became of a question, in a word on its badge and in words beside it. */
const OUTCOME_TEXTS: Record<RunModelQuestion['outcome'], { badge: string; text: string }> = {
  waiting: { badge: 'waiting', text: 'waits for a person to answer its blocker' },
  answered: { badge: 'answered', text: 'was answered; the next round started with the answer' },
  'given-up': {
    badge: 'given up',
    text: 'got no answer: a person chose not to answer; the run ended blocked',
  },
  'timed-out': { badge: 'timed out', text: 'got no answer in time; the run ended blocked' },
  'time-limit': {
    badge: 'time limit',
    text: "got no answer before the run's time limit ran out; the run ended blocked",
  },
  unavailable: { badge: 'unavailable', text: 'could not be put to a person; the run ended blocked' },
  cancelled: { badge: 'cancelled', text: 'got no answer: the run was stopped while it waited' },
};

/**
 * A blocked round's question to a person (`--ask`), as its round's entry on the run page shows it: the blocker, how
 * long the run waits or waited, and the answer and who gave it, or why none came. Everything a person or an agent
 * wrote is escaped.
 */
export function questionBlock(round: number, question: RunModelQuestion): string {
  const { badge, text } = OUTCOME_TEXTS[question.outcome];
  const took =
    question.endedAt === null
      ? ` (up to ${escapeHtml(formatWait(question.waitMs))})`
      : `, after ${formatDuration(question.endedAt - question.askedAt)}`;
  const by = question.by === null ? '' : `; by <span class="by">${escapeHtml(question.by)}</span>`;
  let html =
    `<section class="question question-${question.outcome}" id="question-${round}">` +
    `<h4>Question to a person</h4>` +
    `<p class="verdict"><span class="badge question-${question.outcome}">${badge}</span> ` +
    `Round ${round}'s question ${text}${took}${by}.</p>` +
    `<div class="text asked">${escapeHtml(question.question)}</div>`;
  if (question.answer !== null)
    html += `<h4>Answer</h4><div class="text answer" id="answer-${round}">${escapeHtml(question.answer)}</div>`;
  if (question.detail !== undefined)
    html += `<h4>Detail</h4><pre class="text detail">${escapeHtml(question.detail)}</pre>`;
  return `${html}</section>`;
}
