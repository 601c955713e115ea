import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type BatchTask, idProblem } from '../contract/batch-tasks.js';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';
import { isBatchRecording, readBatchRecording } from '../inspect/batch-recording.js';
import { type RecordedResume, RunSettledError, resumePointOf } from '../inspect/resume-point.js';
import { buildRunModel } from '../inspect/run-model-builder.js';
import type { TaskEntry, TaskStatus } from '../machines/batch-types.js';
import { keptName, recordedHostRuns } from '../process/recorded-host.js';
import { gitLine } from '../workspace/git-command.js';
import { batchFolder } from '../workspace/git-worktree.js';

/** What a resumed batch continues with: its id, target and start, and the tasks that already settled. */
export interface ResumedBatch {
  batchId: string;
  repo: string;
  target: string;
  start: string;
  folder: string;
  /** The tasks that keep where they got to; every other task runs (again, or on from its run's recording). */
  settled: Map<string, Pick<TaskEntry, 'status' | 'note' | 'conflicts'>>;
}

/** What a resume keeps: a task that landed stays landed, one that needs review (or failed, or was skipped) stays so. */
const KEPT: ReadonlySet<string> = new Set<TaskStatus>(['landed', 'needs-review', 'failed', 'skipped']);

const refuse = (path: string, problem: string): RalphError =>
  new RalphError({ code: 'refused', message: `ralph batch --resume ${path}: ${problem}` });

/**
 * Reads a batch's recording for `--resume`: refused when it is not a batch's, when the batch settled with nothing
 * left to run (a cancelled batch's cancelled tasks run again), when the process that ran it still runs, when the tasks
 * file is not the batch's (every task, its objective and its order after others, as recorded), or when the recording
 * is not in this repository's batches.
 */
export async function resumedBatch(
  path: string,
  tasks: readonly BatchTask[],
  cwd: string,
): Promise<ResumedBatch> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw refuse(path, `cannot read it: ${errorText(error)}`);
  }
  if (!isBatchRecording(text))
    throw refuse(path, "it is not a batch's recording (ralph batch writes batch.jsonl)");
  const recording = readBatchRecording(text);
  const { header } = recording;
  // The id names the batch's branches and its folder: one a crafted recording gives is checked as any id is.
  const idRefused = idProblem(String(header.batchId));
  if (idRefused !== null) throw refuse(path, `its batch id ${idRefused}`);
  const kept = (id: string): boolean => KEPT.has(recording.tasks.get(id)?.status ?? 'waiting');
  if (recording.settled !== null && header.tasks.every((task) => kept(task.id)))
    throw refuse(path, `batch ${header.batchId} already settled: there is nothing to resume`);
  const pid = recordedHostRuns(recording.process);
  if (pid !== undefined)
    throw refuse(path, `batch ${header.batchId} is still running in process ${pid}; stop it first`);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const recorded of header.tasks) {
    const task = byId.get(recorded.id);
    if (
      task === undefined ||
      task.objective !== recorded.objective ||
      task.after.join() !== recorded.after.join()
    )
      throw refuse(
        path,
        `the tasks file is not the batch's: task ${recorded.id} differs from what was recorded`,
      );
  }
  if (tasks.length !== header.tasks.length)
    throw refuse(path, "the tasks file is not the batch's: it has other tasks");
  const repo = await gitLine(cwd, ['rev-parse', '--show-toplevel']).catch(() => {
    throw refuse(path, `${cwd} is not in a git repository`);
  });
  const folder = await batchFolder(repo, header.batchId);
  if (resolve(dirname(path)) !== folder) throw refuse(path, `it is not the recording of a batch of ${repo}`);
  const settled = new Map<string, Pick<TaskEntry, 'status' | 'note' | 'conflicts'>>();
  for (const [id, line] of recording.tasks)
    if (kept(id))
      settled.set(id, { status: line.status as TaskStatus, note: line.note, conflicts: line.conflicts });
  return { batchId: header.batchId, repo, target: header.target, start: header.start, folder, settled };
}

/** Where a task's earlier run got to: completed, to resume from its last accepted report, or nothing to go on. */
export type PriorRun =
  | { kind: 'completed'; runId: string; rounds: number }
  | { kind: 'resume'; recorded: RecordedResume }
  | { kind: 'none' };

/**
 * Reads a task's run recording when its batch resumes. A run that did not settle is resumed from its recording,
 * which is kept as `<file>.1` (the resumed run records to the file again); one that completed is not run again; one
 * that settled otherwise (cancelled) runs again from its branch, its recording kept as `<file>.1` (`.2`, … when taken).
 */
export function priorRun(recordingPath: string): PriorRun {
  if (!existsSync(recordingPath)) return { kind: 'none' };
  const text = readFileSync(recordingPath, 'utf8');
  try {
    const recorded = resumePointOf(text);
    renameSync(recordingPath, keptName(recordingPath));
    return { kind: 'resume', recorded };
  } catch (error) {
    if (!(error instanceof RunSettledError)) return { kind: 'none' };
  }
  const ending = buildRunModel(text).ending?.result;
  if (ending?.ok === true && ending.envelope.result.status === 'complete')
    return { kind: 'completed', runId: ending.envelope.runId, rounds: ending.envelope.result.rounds };
  renameSync(recordingPath, keptName(recordingPath));
  return { kind: 'none' };
}
