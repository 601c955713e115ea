import type { BatchRecording } from '../inspect/batch-recording.js';
import { escapeHtml } from './report-page-text.js';

/** One task's row: how it ended, what its run took, and where its run's own page is. */
export interface BatchPageRow {
  id: string;
  objective: string;
  status: string;
  rounds: number | null;
  costUsd: number | null;
  /** The merge outcome or why the task ended as it did. */
  note: string | null;
  conflicts: string[];
  /** The run's report page, relative to the batch page; null when the task's run was never recorded. */
  runPage: string | null;
}

const cell = (value: string | number | null): string =>
  `<td>${value === null ? '—' : escapeHtml(value)}</td>`;

/** The first line of a text, cut to `limit` characters. */
const firstLine = (text: string, limit = 120): string => {
  const line = text.split('\n')[0] ?? '';
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
};

/** The merge outcome: its first line, and the rest (a failing verify command's output) quoted below it. */
const noteCell = (note: string | null): string => {
  if (note === null) return cell(null);
  const rest = note.split('\n').slice(1).join('\n').trim();
  const quoted = rest === '' ? '' : `<pre>${escapeHtml(rest)}</pre>`;
  return `<td>${escapeHtml(firstLine(note, 300))}${quoted}</td>`;
};

/** One self-contained HTML page of a batch: a row per task, each linking to its run's own report. */
export function renderBatchPage(recording: BatchRecording, rows: readonly BatchPageRow[]): string {
  const { header, settled } = recording;
  const ending =
    settled === null
      ? 'did not settle (the recording ends before the batch did)'
      : settled.cancelReason === null
        ? 'settled'
        : `cancelled (${settled.cancelReason})`;
  const body = rows
    .map(
      (row) =>
        `<tr class="status-${escapeHtml(row.status)}"><td>${row.runPage === null ? escapeHtml(row.id) : `<a href="${escapeHtml(row.runPage)}">${escapeHtml(row.id)}</a>`}</td>${cell(firstLine(row.objective))}${cell(row.status)}${cell(row.rounds)}${cell(row.costUsd === null ? null : `$${row.costUsd.toFixed(2)}`)}${noteCell(row.note)}${cell(row.conflicts.length === 0 ? null : row.conflicts.join(', '))}</tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ralph batch ${escapeHtml(header.batchId)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}pre{margin:.3rem 0 0;white-space:pre-wrap;font-size:.85em}.status-landed td:nth-child(3){color:#176f2c}.status-needs-review td:nth-child(3),.status-failed td:nth-child(3){color:#a4161a;font-weight:bold}</style>
</head><body>
<h1>ralph batch ${escapeHtml(header.batchId)}</h1>
<p>${rows.length} task(s) onto <code>${escapeHtml(header.target)}</code> from <code>${escapeHtml(header.start.slice(0, 12))}</code>, at most ${header.parallel} at once, started ${escapeHtml(header.startedAt)}; the batch ${escapeHtml(ending)}.</p>
<table><thead><tr><th>task</th><th>objective</th><th>status</th><th>rounds</th><th>cost</th><th>merge outcome</th><th>conflicting files</th></tr></thead>
<tbody>
${body}
</tbody></table>
</body></html>
`;
}
