import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readBatchRecording } from '../../inspect/batch-recording.js';
import { buildRunModel } from '../../inspect/run-model-builder.js';
import { type BatchPageRow, renderBatchPage } from '../../visualize/batch-page.js';
import { renderRunPage } from '../../visualize/report-page.js';
import { machineSvg } from './machine-svg.js';
import { batchRunPath, defaultReportPath } from './report-path.js';

/** A page to write: where, and what. */
export interface PageToWrite {
  path: string;
  html: string;
}

/**
 * The pages of a batch's recording: the batch's own (a row per task: status, rounds, cost, merge outcome, the
 * conflicting files) at `output`, and each recorded run's report beside its recording, which the row links to.
 * Throws RunPathRefused, before any page is written, when the header names a run outside the batch's `runs/` folder.
 */
export function batchReportPages(recordingPath: string, text: string, output: string): PageToWrite[] {
  const recording = readBatchRecording(text);
  const pages: PageToWrite[] = [];
  const svg = machineSvg('ralph report');
  const rows: BatchPageRow[] = recording.header.tasks.map((task) => {
    const last = recording.tasks.get(task.id);
    const row: BatchPageRow = {
      id: task.id,
      objective: task.objective,
      status: last?.status ?? 'waiting',
      rounds: null,
      costUsd: null,
      note: last?.note ?? null,
      conflicts: last?.conflicts ?? [],
      runPage: null,
    };
    const runFile = recording.header.runs[task.id];
    const runPath = runFile === undefined ? null : batchRunPath(recordingPath, task.id, runFile);
    if (runPath === null) return row;
    try {
      const model = buildRunModel(readFileSync(runPath, 'utf8'));
      const page = defaultReportPath(runPath);
      pages.push({ path: page, html: renderRunPage(model, { machineSvg: svg }) });
      return {
        ...row,
        rounds: model.rounds.length,
        costUsd: model.usage?.costUsd ?? null,
        runPage: relative(dirname(output), page),
      };
    } catch {
      // A run recording cut short by a crash gives no page; the row still says what the batch knew.
      return row;
    }
  });
  pages.push({ path: output, html: renderBatchPage(recording, rows) });
  return pages;
}
