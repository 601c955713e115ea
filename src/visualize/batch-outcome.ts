import { escapeHtml } from './report-page-text.js';
import type { RunTone } from './tone.js';

/** What a person does next about a task or a batch: what to do, and the command that does it. */
export interface NextStep {
  text: string;
  command: string;
}

/** How a task ended for its batch, as the batch's page and the task's run page both say it. */
export interface TaskOutcome {
  /** One line: `Landed on <target> at <commit>`, `Needs review: <reason>`, `Failed: <reason>`, … */
  label: string;
  tone: RunTone;
}

/** The first line of a text with any text on it, cut to `limit` characters. */
export function firstLine(text: string, limit = 160): string {
  const line =
    text
      .split('\n')
      .map((each) => each.trim())
      .find((each) => each !== '') ?? '';
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

const withReason = (label: string, note: string | null): string =>
  note === null || firstLine(note) === '' ? label : `${label}: ${firstLine(note)}`;

/**
 * How a task with this last recorded status ended for the batch: landed (on which target, at which commit), needs
 * review or failed (and why), skipped, cancelled, or not settled when the recording ends before the task did.
 */
export function taskOutcome(
  status: string,
  note: string | null,
  target: string,
  commit: string | null,
): TaskOutcome {
  switch (status) {
    case 'landed':
      return {
        label: `Landed on ${target}${commit === null ? '' : ` at ${commit.slice(0, 12)}`}`,
        tone: 'good',
      };
    case 'needs-review':
      return { label: withReason('Needs review', note), tone: 'warn' };
    case 'failed':
      return { label: withReason('Failed', note), tone: 'bad' };
    case 'skipped':
      return { label: withReason('Skipped', note), tone: 'muted' };
    case 'cancelled':
      return { label: withReason('Cancelled', note), tone: 'muted' };
    // A batch that asks (`--ask`): the note is the question its task's run waits on.
    case 'awaiting-answer':
      return { label: withReason('Waiting for an answer', note), tone: 'live' };
    case 'answered':
      return { label: 'Answered, waiting for a parallel slot', tone: 'live' };
    default:
      return { label: `Not settled: ${status} when the recording ends`, tone: 'live' };
  }
}

/** A next step as HTML: what to do, then its command on a line of its own, easy to select and copy. */
export const nextStepHtml = (step: NextStep): string =>
  `${escapeHtml(step.text)}<br><code>${escapeHtml(step.command)}</code>`;
