import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { type MergeSetup, scratchPath, taskWorktree } from '../actors/merge-steps.js';
import { parseVerifyCommand } from '../actors/verify-command.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../contract/config.js';
import { RalphError } from '../contract/errors.js';
import { BatchRecorder, isBatchRecording, readBatchRecording } from '../inspect/batch-recording.js';
import { type BatchOutput, batchMachine } from '../machines/batch.machine.js';
import type { TaskEntry } from '../machines/batch-types.js';
import { thisHost } from '../process/process-identity.js';
import { recordedHostRuns } from '../process/recorded-host.js';
import { sweepOrphanedRoundsOnce } from '../process/round-folder.js';
import type { SandboxOptions } from '../run/sandbox-options.js';
import { gitLine, gitLines } from '../workspace/git-command.js';
import { branchCommit, checkedOutBranches, taskBranch } from '../workspace/git-session.js';
import { batchFolder, pruneWorktrees, removeWorktree, worktreePaths } from '../workspace/git-worktree.js';
import { LandingLog } from './landings.js';
import { localMergeQueue } from './merge-queue.js';
import { assertBatchSandbox, batchHiddenPaths, mergeSandbox } from './sandbox.js';

/** The statuses a task is landed by hand from: its loop's work is on its branch, and a person fixed it there. */
const LANDABLE: ReadonlySet<string> = new Set(['needs-review', 'failed']);

/** A batch's task, checked to be landable by hand: where it is, and how its merge is verified. */
export interface LandableTask {
  repo: string;
  folder: string;
  recordingPath: string;
  target: string;
  branch: string;
  /** The verify command the batch recorded for the task's merge (null: none). */
  verify: string | null;
  verifyTimeoutMs: number;
  /** The task's last recorded status: what it stays when the landing does not happen. */
  status: string;
}

/**
 * Checks that `taskId` of batch `batchId` can be landed now, before anything starts: the batch and the task exist
 * in the repository `cwd` is in, no process runs the batch, the task needs review (or failed) and has not landed, its
 * branch and the batch's target are there, no worktree has the target checked out, and the task's worktree holds
 * nothing uncommitted (it is removed once the task lands).
 */
export async function landableTask(batchId: string, taskId: string, cwd: string): Promise<LandableTask> {
  const refuse = (problem: string): RalphError =>
    new RalphError({ code: 'refused', message: `ralph batch --land ${batchId} ${taskId}: ${problem}` });
  const repo = await gitLine(cwd, ['rev-parse', '--show-toplevel']).catch(() => {
    throw refuse(`${cwd} is not in a git repository`);
  });
  // A batch id is one folder name: anything else names no batch (and no folder outside the batches').
  const folder = /^[\w-][\w.-]*$/.test(batchId) ? await batchFolder(repo, batchId) : null;
  const recordingPath = folder === null ? null : join(folder, 'batch.jsonl');
  if (folder === null || recordingPath === null || !existsSync(recordingPath))
    throw refuse(`there is no batch ${batchId} in ${repo}`);
  const text = readFileSync(recordingPath, 'utf8');
  if (!isBatchRecording(text)) throw refuse(`${recordingPath} is not a batch's recording`);
  const recording = readBatchRecording(text);
  const { header } = recording;
  const task = header.tasks.find((recorded) => recorded.id === taskId);
  if (task === undefined)
    throw refuse(
      `batch ${batchId} has no task ${taskId} (its tasks: ${header.tasks.map((t) => t.id).join(', ')})`,
    );
  const pid = recordedHostRuns(recording.process);
  if (pid !== undefined)
    throw refuse(`batch ${batchId} is still running in process ${pid}; let it end (or stop it) first`);
  const status = recording.tasks.get(taskId)?.status ?? 'waiting';
  if (status === 'landed') throw refuse(`task ${taskId} already landed on ${header.target}`);
  if (!LANDABLE.has(status))
    throw refuse(
      `task ${taskId} is ${status}, and only a task that needs review (or failed) is landed by hand${status === 'cancelled' ? `; a cancelled task runs again with ralph batch <its tasks file> --resume ${recordingPath}` : ''}`,
    );
  if (task.verify === undefined)
    throw refuse(
      `batch ${batchId} was recorded by a ralph that did not record its verify command, so its merge cannot be verified as the batch's was`,
    );
  const branch = taskBranch(batchId, taskId);
  if ((await branchCommit(repo, branch)) === null) throw refuse(`its branch ${branch} is gone`);
  if ((await branchCommit(repo, header.target)) === null)
    throw refuse(`batch ${batchId}'s target ${header.target} is gone`);
  if ((await checkedOutBranches(repo)).has(header.target))
    throw refuse(
      `${header.target} is checked out in a worktree, and a batch never moves a branch under someone's files: check out another branch there first`,
    );
  const tree = taskWorktree(folder, taskId);
  if ((await worktreePaths(repo)).includes(tree)) {
    const dirty = await gitLines(tree, ['status', '--porcelain', '--untracked-files=normal']);
    if (dirty.length > 0)
      throw refuse(
        `its worktree ${tree} has ${dirty.length} uncommitted change(s): commit them on ${branch} first (the worktree is removed once the task lands)`,
      );
  }
  return {
    repo,
    folder,
    recordingPath,
    target: header.target,
    branch,
    verify: task.verify,
    verifyTimeoutMs: header.verifyTimeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS,
    status,
  };
}

/** A fixed task's landing, settled: the batch machine's output for it, and whether its worktree is kept. */
export interface FixedTaskLanding {
  task: LandableTask;
  output: BatchOutput;
  /** The task as the landing left it: landed, needs review again, or cancelled (it stays as it was). */
  entry: TaskEntry;
  /** True when the task's worktree is still there (it needs review again). */
  worktreeKept: boolean;
}

/**
 * Lands one task of batch `batchId` that a person fixed by hand through the batch's own merge path (the batch machine
 * given the task queued, so its merge queue rebases it onto the target's head, runs the batch's verify command as
 * recorded on the combined tree, and moves the target by compare-and-swap), and records the outcome in the batch's
 * recording. `signal` aborted cancels the landing; `say` tells what happens.
 */
export async function landFixedTask(
  batchId: string,
  taskId: string,
  cwd: string,
  options: SandboxOptions,
  hooks: { say(text: string): void; signal?: AbortSignal },
): Promise<FixedTaskLanding> {
  const { say } = hooks;
  const task = await landableTask(batchId, taskId, cwd);
  const { repo, folder, target } = task;
  await assertBatchSandbox(options);
  await sweepOrphanedRoundsOnce();
  const recorder = new BatchRecorder(task.recordingPath, null);
  recorder.landing(thisHost(), taskId);
  const verify = task.verify === null ? null : parseVerifyCommand(task.verify);
  const merge: MergeSetup = {
    batchId,
    repo,
    target,
    folder,
    verifyOf: () => verify,
    verifyTimeoutMs: task.verifyTimeoutMs,
    terminationGraceMs: 5_000,
    ...mergeSandbox(options, await batchHiddenPaths(options, repo)),
  };
  say(
    `landing task ${taskId} of batch ${batchId} from ${task.branch} on ${target}${task.verify === null ? '' : `, verified by ${task.verify}`}`,
  );
  const landings = new LandingLog();
  const queue = localMergeQueue(merge, landings);
  const actor = createActor(batchMachine.provide({ actors: { mergeQueue: queue } }), {
    input: {
      tasks: [{ id: taskId, after: [], status: 'queued' }],
      parallel: 1,
      verifies: verify !== null,
      resolves: false,
      branches: { [taskId]: task.branch },
    },
  });
  const cancel = () => actor.send({ type: 'CANCEL', reason: 'interrupted' });
  let output: BatchOutput;
  try {
    actor.start();
    hooks.signal?.addEventListener('abort', cancel, { once: true });
    output = await toPromise(actor);
  } finally {
    hooks.signal?.removeEventListener('abort', cancel);
  }
  await landings.landedAfterAll(output, repo, target);
  const [entry] = output.tasks;
  if (entry === undefined) throw new Error('the batch machine settled without the task it was given');
  // A cancelled landing leaves the task as it was: only an outcome of the merge is recorded.
  if (entry.status === 'landed' || entry.status === 'needs-review') {
    const commit = entry.status === 'landed' ? landings.headOf(taskId) : undefined;
    recorder.task({
      id: entry.id,
      status: entry.status,
      note: entry.note,
      conflicts: entry.conflicts,
      ...(commit === undefined ? {} : { commit }),
    });
  }
  recorder.close();
  if (existsSync(scratchPath(merge))) await removeWorktree(repo, scratchPath(merge));
  await pruneWorktrees(repo);
  return { task, output, entry, worktreeKept: existsSync(taskWorktree(folder, taskId)) };
}
