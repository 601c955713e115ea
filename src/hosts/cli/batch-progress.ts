import { ANSWERED_WORDS, WAITING_FOR_ANSWER_WORDS } from '../../contract/batch-answer-messages.js';
import { costText } from '../../contract/usage.js';
import type { TaskEntry, TaskStatus } from '../../machines/batch-types.js';
import { CLEAR_LINE, type ProgressOptions } from './progress.js';

/** Where `ralph batch` says what happens: a line per task event, and on a terminal a live summary below them. */
export interface BatchProgress {
  /** One line of the batch's progress (`ralph batch: …`). */
  line(text: string): void;
  /** The tasks as they are now, and what their loops spent (null while no agent said): redraws the summary. */
  update(tasks: readonly Pick<TaskEntry, 'status'>[], spentUsd: number | null): void;
  /** Clears the live summary and stops drawing it; safe to call twice. */
  stop(): void;
}

/** The summary's words for each status, in the order they are shown. */
const SHOWN: [TaskStatus, string][] = [
  ['running', 'running'],
  ['awaiting-answer', WAITING_FOR_ANSWER_WORDS],
  ['answered', ANSWERED_WORDS],
  ['waiting', 'waiting'],
  ['queued', 'queued'],
  ['landed', 'landed'],
  ['needs-review', 'needs review'],
  ['failed', 'failed'],
  ['skipped', 'skipped'],
  ['cancelled', 'cancelled'],
];

/**
 * The live summary line: `ralph batch: 3 running · 1 waiting for an answer · 2 queued · 4 landed · 1 needs review · $0.42`. Running always
 * shows; other statuses only when some task has them; the cost once an agent said what it spent.
 */
export function batchSummaryLine(
  tasks: readonly Pick<TaskEntry, 'status'>[],
  spentUsd: number | null,
): string {
  const parts = SHOWN.flatMap(([status, words]) => {
    const count = tasks.filter((task) => task.status === status).length;
    return count > 0 || status === 'running' ? [`${count} ${words}`] : [];
  });
  if (spentUsd !== null) parts.push(costText(spentUsd));
  return `ralph batch: ${parts.join(' · ')}`;
}

/** The batch's progress on `stream`: plain lines, and with `options.live` the summary redrawn in place below them. */
export function createBatchProgress(stream: NodeJS.WritableStream, options: ProgressOptions): BatchProgress {
  /** The summary last drawn; null before the first update and once stopped. */
  let summary: string | null = null;
  let stopped = false;
  return {
    line(text) {
      if (!options.live || stopped) stream.write(`ralph batch: ${text}\n`);
      else stream.write(`${CLEAR_LINE}ralph batch: ${text}\n${summary ?? ''}`);
    },
    update(tasks, spentUsd) {
      if (!options.live || stopped) return;
      const next = batchSummaryLine(tasks, spentUsd);
      if (next === summary) return;
      summary = next;
      stream.write(`${CLEAR_LINE}${summary}`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (summary !== null) stream.write(CLEAR_LINE);
      summary = null;
    },
  };
}
