import { existsSync } from 'node:fs';
import { type MergeSetup, scratchPath, verifyCombinedOwned } from '../actors/merge-steps.js';
import { parseVerifyCommand } from '../actors/verify-command.js';
import { pullNotOpened } from '../contract/fleet-pull-messages.js';
import type { RalphSandbox } from '../contract/sandbox.js';
import { pauseAfterLandForTests } from '../process/pause-after-land.js';
import { git } from '../workspace/git-command.js';
import { rebaseOnto } from '../workspace/git-rebase.js';
import { pushBranch, remoteHead, taskTrailers } from '../workspace/git-remote.js';
import { addDetachedWorktree, removeWorktree } from '../workspace/git-worktree.js';
import { type BatchFolders, branchOf, dropWorktree, withClone } from './batch-clone.js';
import { type BatchTaskResult, type FleetBatchTask, taskTrailer } from './batch-input.js';
import {
  draftOnFleet,
  errorLine,
  type FleetGitHub,
  isPullTask,
  pullOnFleet,
  type RunFacts,
} from './batch-pulls.js';
import type { FleetResolveOutcome, FleetResolver } from './batch-resolve.js';
import type { FleetSandboxAsk } from './run-sandbox.js';
import { privateFolder, StateFolderError, statePath } from './state-folder.js';

/** How long a verify command stopped by a cancel may take to end before it is killed (ms). */
const VERIFY_GRACE_MS = 5_000;

/** What a landing workflow is given: the task, and the run that made its branch (for the log). */
export interface LandingInput {
  task: FleetBatchTask;
  runId: string;
  /** With `--resolve-conflicts`: the agent and options a conflict's resolver loop runs with. */
  resolver?: FleetResolver;
  /** The task's run's ask for the sandbox (its input's `sandbox`), which its merge's verify and resolver keep. */
  sandbox?: FleetSandboxAsk;
  /** With `--land pr`: what its pull request needs of the task's run (absent: the task lands on the target). */
  pull?: LandingPull;
}

/** What the landing of a `--land pr` task needs of its run: its objective, its facts, and what it is stacked on. */
export interface LandingPull {
  objective: string;
  facts: RunFacts;
  /** The pull request of the task it comes after (its branch and pushed commit), when it is stacked on it. */
  stackedOn: { branch: string; head: string } | null;
}

/** Where a `--land pr` landing opens its pull request: the worker's GitHub, and what the run gave it. */
export type PullLandingOf = LandingPull & { github: FleetGitHub };

const needsReview = (detail: string, files: string[] = []): BatchTaskResult => ({
  status: 'needs-review',
  detail,
  files,
});

/** The merge setup of one landing: the worker's clone, a scratch tree of its own, the task's verify command. */
function mergeSetup(
  folders: BatchFolders,
  clone: string,
  task: FleetBatchTask,
  sandbox: RalphSandbox | undefined,
): MergeSetup {
  return {
    ...(sandbox === undefined ? {} : { sandbox }),
    batchId: task.batchId,
    repo: clone,
    target: task.target,
    folder: statePath(folders.stateDir, 'merges', task.batchId, task.taskId),
    verifyOf: () => (task.verify === null ? null : parseVerifyCommand(task.verify)),
    verifyTimeoutMs: task.verifyTimeoutMs,
    terminationGraceMs: VERIFY_GRACE_MS,
  };
}

/** Whether `ancestor` is `commit` or below it (`git merge-base --is-ancestor`). */
const isAncestor = (cwd: string, ancestor: string, commit: string): Promise<boolean> =>
  git(cwd, ['merge-base', '--is-ancestor', ancestor, commit]).then(
    () => true,
    () => false,
  );

/** A landing ready to merge: its scratch tree on the task's head, and the target's head it started from. */
interface OpenLanding {
  setup: MergeSetup;
  scratch: string;
  head: string;
  targetHead: string | null;
}

/**
 * Lands a task's pushed branch on the remote's target, as one step of its landing workflow (one landing per target
 * at once, by the merge queue's partitions): fetch; when a commit of the target carries the task's `Ralph-Task:`
 * trailer it landed already (a step re-run after a crash) and nothing is done; else rebase the branch onto the
 * target's head in a scratch worktree, run the verify command on the combined tree, and push the commit the rebase
 * (or the resolver) made, never what the verify command left checked out, with `--force-with-lease` from the head it
 * rebased onto. A conflict (unless `resolve`, with `--resolve-conflicts`, makes a merge of it), a failing verify, a
 * merge without the target's head below it, or a target that moved meanwhile needs review: the target is untouched, the
 * task's branch stays on the remote. Only the fetch, the scratch tree's making and removal and the push wait their
 * turn on the worker's clone: the merge, its resolver loop and its verify command run in the scratch tree, beside a
 * landing on another target and the rounds' pushes of the worker's tasks. With `sandbox`, the verify command runs in
 * it (the resolver's, which `resolve` makes, too).
 */
export async function landTask(
  folders: BatchFolders,
  task: FleetBatchTask,
  signal: AbortSignal,
  resolve?: (merge: { scratch: string; onto: string; head: string }) => Promise<FleetResolveOutcome>,
  sandbox?: RalphSandbox,
  pull?: PullLandingOf,
): Promise<BatchTaskResult> {
  if (pull === undefined || !isPullTask(task)) return landOrPull(folders, task, signal, resolve, sandbox);
  const result = await landOrPull(folders, task, signal, resolve, sandbox, pull);
  if (result.status !== 'needs-review') return result;
  // Its loop completed, but its verify on the target's tree (or its merge) did not pass: a draft, never a ready one.
  return draftOnFleet(folders, pull.github, task, result, {
    objective: pull.objective,
    outcome: 'needs-review',
    why: result.detail,
    base: pull.stackedOn?.branch ?? task.target,
    facts: pull.facts,
    start: task.base,
  });
}

/**
 * The landing itself: with `pull` (`--land pr`), the verified merge is pushed to the task's branch on GitHub and
 * opened as a ready pull request (into the target, or stacked on the branch of the task it comes after) instead of
 * moving the target.
 */
async function landOrPull(
  folders: BatchFolders,
  task: FleetBatchTask,
  signal: AbortSignal,
  resolve?: (merge: { scratch: string; onto: string; head: string }) => Promise<FleetResolveOutcome>,
  sandbox?: RalphSandbox,
  pull?: PullLandingOf,
): Promise<BatchTaskResult> {
  const opened = await withClone(folders, task.repo, (clone) =>
    openLanding(folders, clone, task, sandbox, pull === undefined),
  ).catch((error: unknown) => {
    if (error instanceof StateFolderError) return needsReview(error.message);
    throw error;
  });
  if (!('scratch' in opened)) return opened;
  const { setup, scratch, head, targetHead } = opened;
  try {
    // Stacked: onto the commit the task it comes after pushed to its pull request's branch.
    const onto = pull?.stackedOn?.head ?? targetHead ?? task.base;
    const rebased = await rebaseOnto(scratch, onto);
    // The commit to land is the one ralph made here, recorded before the verify command runs: whatever that command
    // leaves checked out (a reset, a checkout) is not what lands.
    let combined: string;
    if (rebased.kind === 'conflict') {
      const conflict = `conflict in ${rebased.files.join(', ') || 'the rebase'}`;
      if (resolve === undefined) return needsReview(conflict, rebased.files);
      const resolved = await resolve({ scratch, onto, head });
      if (resolved.kind === 'unresolved')
        return needsReview(
          `${conflict}, which its resolver loop left unresolved: ${resolved.note}`,
          rebased.files,
        );
      combined = resolved.head;
    } else combined = rebased.head;
    const verified = await verifyCombinedOwned(
      setup,
      { taskId: task.taskId, branch: branchOf(task) },
      signal,
    );
    if (!verified.passed) return needsReview(`verify failed on the combined tree ${verified.outputTail}`);
    // The lease only says the remote's target is still where it was: a commit without it below would drop its history.
    if (!(await isAncestor(scratch, onto, combined)))
      return needsReview(
        `the merge to land does not have ${task.target}'s head ${onto} below it: it would drop commits of ` +
          `${task.target}, so it was left as it is`,
      );
    if (pull !== undefined && isPullTask(task)) return await openPull(folders, task, pull, combined);
    const pushed = await withClone(
      folders,
      task.repo,
      () => pushBranch(scratch, combined, task.target, targetHead),
      { fetch: false },
    );
    if (!pushed)
      return needsReview(
        `${task.target} moved on the remote while the merge was verified; it was left as it is`,
      );
    await pauseAfterLandForTests(task.taskId);
    return { status: 'landed', detail: `${task.target} at ${combined}`, files: [] };
  } finally {
    await dropWorktree(folders, task.repo, scratch, 'merges');
  }
}

/**
 * On the freshly fetched clone: the landing's result when there is nothing to merge (the target holds the task
 * already, or its branch is not on the remote), else its scratch tree made on the task's head.
 */
async function openLanding(
  folders: BatchFolders,
  clone: string,
  task: FleetBatchTask,
  sandbox: RalphSandbox | undefined,
  onTarget: boolean,
): Promise<BatchTaskResult | OpenLanding> {
  const targetHead = await remoteHead(clone, task.target);
  // A pull request's task never lands on the target: its trailer there says nothing of it.
  if (targetHead !== null && onTarget) {
    const landed = await taskTrailers(clone, `${task.base}..${targetHead}`);
    if (landed.includes(taskTrailer(task)))
      return { status: 'landed', detail: `already on ${task.target} at ${targetHead}`, files: [] };
  }
  const branch = branchOf(task);
  const head = await remoteHead(clone, branch);
  if (head === null) return needsReview(`its branch ${branch} is not on the remote`);
  const setup = mergeSetup(folders, clone, task, sandbox);
  const scratch = scratchPath(setup);
  if (existsSync(scratch)) await removeWorktree(clone, scratch);
  await privateFolder(folders.stateDir, 'merges', setup.folder);
  await addDetachedWorktree(clone, scratch, head);
  return { setup, scratch, head, targetHead };
}

/** The verified merge `combined` pushed to the task's branch on GitHub and opened as a ready pull request. */
async function openPull(
  folders: BatchFolders,
  task: Parameters<typeof pullOnFleet>[2],
  pull: PullLandingOf,
  combined: string,
): Promise<BatchTaskResult> {
  try {
    const opened = await pullOnFleet(folders, pull.github, task, {
      objective: pull.objective,
      outcome: 'passed',
      why: null,
      head: combined,
      base: pull.stackedOn?.branch ?? task.target,
      facts: pull.facts,
    });
    if (opened === null) return needsReview(pullNotOpened('it had no commit to push'));
    return { status: 'landed', detail: `pull request ${opened.url}`, files: [], pull: opened };
  } catch (error) {
    return needsReview(pullNotOpened(errorLine(error)));
  }
}
