import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { BatchTask } from '../contract/batch-tasks.js';
import { BatchRecorder } from '../inspect/batch-recording.js';
import type { TaskEntry } from '../machines/batch-types.js';
import { thisHost } from '../process/process-identity.js';
import { sweepOrphanedRounds } from '../process/round-folder.js';
import { startSession } from '../workspace/git-session.js';
import { batchFolder, pruneWorktrees } from '../workspace/git-worktree.js';
import { runRecordingPath } from './loops.js';
import { resumedBatch } from './resume.js';

/** A batch ready to run: new, or resumed from its recording. */
export interface OpenBatch {
  batchId: string;
  repo: string;
  target: string;
  start: string;
  folder: string;
  recordingPath: string;
  recorder: BatchRecorder;
  /** The tasks a resumed batch keeps as they were (empty for a new batch). */
  settled: Map<string, Pick<TaskEntry, 'status' | 'note' | 'conflicts'>>;
  resumed: boolean;
}

/**
 * Starts a new batch (its session branch and tag, its folder and recording), or, with `resume`, continues the one
 * recorded there: the same id, target and start, its recording continued, and what the dead process left running
 * killed first. Either way, stale worktree entries a crash left are pruned. `say` tells the user.
 */
export async function openBatch(
  tasks: readonly BatchTask[],
  options: {
    into?: string;
    resume?: string;
    parallel: number;
    batchId: string;
    /** A task's verify command as given (its own, else `--verify`), recorded for `ralph batch --land`. */
    verifyText(task: BatchTask): string | null;
    verifyTimeoutMs: number;
    /** The tasks file's absolute path, recorded for the resume command a batch's page prints (none: from GitHub). */
    tasksFile?: string;
    /** `--land pr`: the tasks go up as pull requests into the target, which itself does not move. */
    asPulls?: boolean;
  },
  cwd: string,
  say: (text: string) => void,
): Promise<OpenBatch> {
  if (options.resume !== undefined) {
    const resumed = await resumedBatch(options.resume, tasks, cwd);
    await pruneWorktrees(resumed.repo);
    // What the dead process left running is killed now, even in a process that swept before (a library host that
    // resumes a batch another process ran): its rounds' sweep is once a process.
    await sweepOrphanedRounds();
    const recordingPath = resolve(options.resume);
    const recorder = new BatchRecorder(recordingPath, null);
    recorder.resumed(thisHost());
    say(
      `resuming batch ${resumed.batchId}: ${resumed.settled.size} of ${tasks.length} task(s) settled already`,
    );
    return { ...resumed, recordingPath, recorder, resumed: true };
  }
  const { batchId } = options;
  const session = await startSession(cwd, batchId, options.into);
  const folder = await batchFolder(session.repo, batchId);
  // What an earlier batch that crashed left registered (worktrees whose folders are gone) is forgotten first.
  await pruneWorktrees(session.repo);
  say(
    `batch ${batchId}: ${tasks.length} task(s), at most ${options.parallel} at once, ${options.asPulls === true ? 'as pull requests into' : 'landing on'} ${session.target} from ${session.start.slice(0, 12)}`,
  );
  if (session.dirty.length > 0)
    say(
      `your working tree has uncommitted changes in ${session.dirty.length} path(s); they are not part of the batch, which starts from the last commit`,
    );
  mkdirSync(folder, { recursive: true });
  const recordingPath = join(folder, 'batch.jsonl');
  const recorder = new BatchRecorder(recordingPath, {
    kind: 'ralph-batch',
    formatVersion: 1,
    batchId,
    startedAt: new Date().toISOString(),
    target: session.target,
    start: session.start,
    parallel: options.parallel,
    tasks: tasks.map((task) => ({
      id: task.id,
      objective: task.objective,
      after: task.after,
      verify: options.verifyText(task),
    })),
    verifyTimeoutMs: options.verifyTimeoutMs,
    runs: Object.fromEntries(
      tasks.map((task) => [task.id, relative(folder, runRecordingPath(folder, task.id))]),
    ),
    process: thisHost(),
    ...(options.tasksFile === undefined ? {} : { tasksFile: options.tasksFile }),
  });
  return {
    batchId,
    repo: session.repo,
    target: session.target,
    start: session.start,
    folder,
    recordingPath,
    recorder,
    settled: new Map(),
    resumed: false,
  };
}
