import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { taskWorktree } from '../../actors/merge-steps.js';
import { batchRunPath } from '../../batch/run-path.js';
import { type BatchRecording, readBatchRecording } from '../../inspect/batch-recording.js';
import { buildRunModel } from '../../inspect/run-model-builder.js';
import { taskOutcome } from '../../visualize/batch-outcome.js';
import { type BatchPageFacts, type BatchPageRow, renderBatchPage } from '../../visualize/batch-page.js';
import { renderRunPage } from '../../visualize/report-page.js';
import { sessionBranch, startTag, taskBranch } from '../../workspace/git-session.js';
import { type BatchPlace, batchNextSteps, taskNextStep } from './batch-next-steps.js';
import { machineSvg } from './machine-svg.js';
import { defaultReportPath } from './report-path.js';

/** A page to write: where, and what. */
export interface PageToWrite {
  path: string;
  html: string;
}

/**
 * How long the batch took: from its start to the time it settled, or (a recording older than that time) the
 * settled line's offset when no resume split the batch over two processes; null when the recording does not say.
 */
function durationOf(recording: BatchRecording): number | null {
  const { header, settled } = recording;
  if (settled === null) return null;
  if (settled.endedAt !== undefined) return Date.parse(settled.endedAt) - Date.parse(header.startedAt);
  return recording.process === header.process ? settled.at : null;
}

/**
 * The pages of a batch's recording: the batch's own at `output` (where it landed, its totals and next steps, and a
 * row per task: outcome, branch, worktree, landing commit, rounds, cost, next step), and each recorded run's page
 * beside its recording, which the row links to and which says the task's batch outcome beside the run's status.
 * Throws RunPathRefused, before any page is written, when the header names a run outside the batch's `runs/` folder.
 */
export function batchReportPages(recordingPath: string, text: string, output: string): PageToWrite[] {
  const recording = readBatchRecording(text);
  const { header } = recording;
  const place: BatchPlace = { recording, recordingPath: resolve(recordingPath) };
  // The batch's folder is the recording's: each task's worktree was made in it.
  const folder = resolve(dirname(recordingPath));
  const pages: PageToWrite[] = [];
  const svg = machineSvg('ralph report');
  const rows: BatchPageRow[] = header.tasks.map((task) => {
    const last = recording.tasks.get(task.id);
    const status = last?.status ?? 'waiting';
    const commit = status === 'landed' ? (last?.commit ?? null) : null;
    const branch = taskBranch(header.batchId, task.id);
    const worktree = taskWorktree(folder, task.id);
    const row: BatchPageRow = {
      id: task.id,
      objective: task.objective,
      status,
      outcome: taskOutcome(status, last?.note ?? null, header.target, commit),
      rounds: null,
      costUsd: null,
      note: last?.note ?? null,
      conflicts: last?.conflicts ?? [],
      branch,
      worktree,
      worktreeKept: existsSync(worktree),
      commit,
      nextStep: taskNextStep(place, task.id, status, branch),
      runPage: null,
    };
    const runFile = header.runs[task.id];
    const runPath = runFile === undefined ? null : batchRunPath(recordingPath, task.id, runFile);
    if (runPath === null) return row;
    try {
      const model = buildRunModel(readFileSync(runPath, 'utf8'));
      const page = defaultReportPath(runPath);
      const batch = {
        batchId: header.batchId,
        outcome: row.outcome,
        note: row.note,
        branch,
        worktree: row.worktreeKept ? worktree : null,
        commit,
        nextStep: row.nextStep,
        batchPage: relative(dirname(page), output),
      };
      pages.push({ path: page, html: renderRunPage(model, { machineSvg: svg, batch }) });
      const ending = model.ending?.result;
      const evaluation = ending?.ok === true ? ending.envelope.result.evaluation : undefined;
      return {
        ...row,
        ...(evaluation === undefined ? {} : { evaluation }),
        rounds: model.rounds.length,
        costUsd: model.usage?.costUsd ?? null,
        runPage: relative(dirname(output), page),
      };
    } catch {
      // A run recording cut short by a crash gives no page; the row still says what the batch knew.
      return row;
    }
  });
  const facts: BatchPageFacts = {
    recording: place.recordingPath,
    startTag: startTag(header.batchId),
    ownTarget: header.target === sessionBranch(header.batchId),
    durationMs: durationOf(recording),
    nextSteps: batchNextSteps(
      place,
      rows.map((row) => row.status),
    ),
  };
  pages.push({ path: output, html: renderBatchPage(recording, rows, facts) });
  return pages;
}
