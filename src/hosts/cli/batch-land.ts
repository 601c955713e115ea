import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { type MergeSetup, scratchPath, taskWorktree } from '../../actors/merge-steps.js';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import { LandingLog } from '../../batch/landings.js';
import { localMergeQueue } from '../../batch/merge-queue.js';
import { assertBatchSandbox, batchHiddenPaths, mergeSandbox } from '../../batch/sandbox.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../../contract/config.js';
import { RalphError } from '../../contract/errors.js';
import { BatchRecorder, isBatchRecording, readBatchRecording } from '../../inspect/batch-recording.js';
import { batchMachine } from '../../machines/batch.machine.js';
import { thisHost } from '../../process/process-identity.js';
import { recordedHostRuns } from '../../process/recorded-host.js';
import { sweepOrphanedRoundsOnce } from '../../process/round-folder.js';
import { GitError, gitLine, gitLines } from '../../workspace/git-command.js';
import { branchCommit, checkedOutBranches, taskBranch } from '../../workspace/git-session.js';
import { batchFolder, pruneWorktrees, removeWorktree, worktreePaths } from '../../workspace/git-worktree.js';
import { landCommandLine } from './batch-next-steps.js';
import type { BatchOptions } from './batch-options.js';
import { exitCodeOf, landHint, statusLine, summary } from './batch-output.js';
import { printFailure } from './print-failure.js';
import { trapBatchInterrupts } from './signals.js';

/** The statuses a task is landed by hand from: its loop's work is on its branch, and a person fixed it there. */
const LANDABLE: ReadonlySet<string> = new Set(['needs-review', 'failed']);

/** The options `--land` takes nothing of: it lands one task as the batch recorded it. */
const NOT_WITH_LAND: [keyof BatchOptions, string][] = [
  ['resume', '--resume'],
  ['rollback', '--rollback'],
  ['repo', '--repo'],
  ['into', '--into'],
  ['parallel', '--parallel'],
  ['verify', '--verify'],
  ['resolveConflicts', '--resolve-conflicts'],
];

/** A batch's task, checked to be landable by hand: where it is, and how its merge is verified. */
interface LandableTask {
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
async function landableTask(batchId: string, taskId: string, cwd: string): Promise<LandableTask> {
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

/**
 * `ralph batch --land <batch-id> <task-id>`: once a person fixed a task's branch by hand, lands that one task
 * through the batch's own merge path (the batch machine given the task queued, so its merge queue rebases it onto
 * the target's head, runs the batch's verify command as recorded on the combined tree, and moves the target by
 * compare-and-swap), and records the outcome in the batch's recording. Resolves with the exit code: 0 landed, 1 it
 * needs review again, 2 refused, 130 cancelled.
 */
export async function landCommand(
  batchId: string,
  taskId: string | undefined,
  options: BatchOptions,
): Promise<number> {
  const say = (text: string) => process.stderr.write(`ralph batch: ${text}\n`);
  try {
    const given = NOT_WITH_LAND.find(([key]) => options[key] !== undefined);
    if (given !== undefined)
      throw new RalphError({
        code: 'refused',
        message: `ralph batch --land takes no ${given[1]}: it lands one task of a batch as the batch recorded it`,
      });
    if (taskId === undefined)
      throw new RalphError({
        code: 'refused',
        message: `ralph batch --land needs the task too: ralph batch --land ${batchId} <task-id>`,
      });
    const task = await landableTask(batchId, taskId, resolve(options.cwd ?? '.'));
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
    const release = trapBatchInterrupts(() => {
      say('cancelling the landing (Ctrl-C again to force)');
      actor.send({ type: 'CANCEL', reason: 'interrupted' });
    });
    const output = await (async () => {
      try {
        actor.start();
        return await toPromise(actor);
      } finally {
        release();
      }
    })();
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
      say(`${taskId}: ${statusLine(entry, target)}`);
      if (entry.status === 'needs-review')
        say(`${taskId}: ${landHint(task.branch, landCommandLine(batchId, taskId, options.cwd))}`);
    } else say(`${taskId}: the landing was cancelled; the task stays ${task.status}`);
    recorder.close();
    if (existsSync(scratchPath(merge))) await removeWorktree(repo, scratchPath(merge));
    await pruneWorktrees(repo);
    const kept = new Set(existsSync(taskWorktree(folder, taskId)) ? [taskId] : []);
    const next = { land: (id: string) => landCommandLine(batchId, id, options.cwd), resume: null };
    process.stdout.write(summary(output, folder, batchId, target, kept, new Set(), next));
    process.stdout.write(`recording ${task.recordingPath}; its page: ralph report ${task.recordingPath}\n`);
    return exitCodeOf(output, output.cancelReason);
  } catch (error) {
    if (error instanceof GitError)
      return printFailure(
        new RalphError({ code: 'refused', message: `ralph batch: ${error.message}` }),
        false,
      );
    return printFailure(error, false);
  }
}
