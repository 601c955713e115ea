import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { taskWorktree } from '../actors/merge-steps.js';
import { isBatchId } from '../contract/batch-id.js';
import { isTaskId } from '../contract/batch-tasks.js';
import { type BatchRecording, isBatchRecording, readBatchRecording } from '../inspect/batch-recording.js';
import { recordedHostRuns } from '../process/recorded-host.js';
import { stripControlToLine } from '../render/terminal-text.js';
import {
  assertInside,
  commitsBetween,
  commitsNotOn,
  pathKind,
  refValue,
  uncommittedPaths,
  userBranchHolding,
} from '../workspace/git-leftovers.js';
import { sessionBranch, startTag, taskBranch } from '../workspace/git-session.js';
import type { WorktreeEntry } from '../workspace/git-worktree.js';

/** One thing a clean removes: a worktree or folder by its path, a branch or tag by its name and its value now. */
export type Removal =
  | { kind: 'worktree' | 'folder'; path: string }
  | { kind: 'branch' | 'tag'; name: string; value: string };

/** One thing a clean leaves where it is, and why (printed as `kept <kind> <what>: <why>`). */
export interface Kept {
  kind: 'branch' | 'tag' | 'worktree' | 'folder';
  what: string;
  why: string;
}

/** What cleaning one entry of the batches folder removes and keeps; the removals in the order they are made. */
export interface BatchPlan {
  /** The batch's folder (`<git folder>/ralph/batches/<entry>`). */
  folder: string;
  /** The recording's text as it was read: the removals are made only while it is still this. */
  recording: string | null;
  remove: Removal[];
  keep: Kept[];
}

/** What every batch's plan is made against: the repository, its batches folder, its worktrees, and --force. */
export interface CleanContext {
  repo: string;
  root: string;
  force: boolean;
  worktrees: readonly WorktreeEntry[];
}

/** `value` as it may be printed: a recording is data anyone may have written, so it is one line, no escapes. */
const shown = (value: unknown): string => stripControlToLine(String(value)).slice(0, 200);

/** The recording of `text` when it is a batch's as ralph writes it, for the batch `id`; else what is wrong with it. */
export function checkedRecording(text: string, id: string): BatchRecording | string {
  if (!isBatchRecording(text)) return "its first line is not a batch's header";
  let recording: BatchRecording;
  try {
    recording = readBatchRecording(text);
  } catch {
    return "its first line is not a batch's header";
  }
  const { header } = recording;
  if (header.batchId !== id) return `it names the batch ${JSON.stringify(shown(header.batchId))}, not ${id}`;
  if (typeof header.target !== 'string' || header.target === '') return 'it names no target branch';
  if (typeof header.start !== 'string' || !/^[0-9a-f]{40,64}$/.test(header.start))
    return 'its start is not a commit id';
  if (!Array.isArray(header.tasks)) return 'it lists no tasks';
  for (const task of header.tasks as unknown[]) {
    const taskId = (task as { id?: unknown } | null)?.id;
    if (!isTaskId(taskId)) return `its task id ${JSON.stringify(shown(taskId))} is not one`;
  }
  return recording;
}

/** A whole entry of the batches folder left alone, and why. */
const leftAlone = (folder: string, why: string): BatchPlan => ({
  folder,
  recording: null,
  remove: [],
  keep: [{ kind: 'folder', what: folder, why }],
});

/**
 * What cleaning the entry `name` of the batches folder does. Left alone whole: an entry that is not a folder named
 * with a batch id, holding a recording of that batch as ralph writes it; a batch whose process runs (even with
 * --force); a batch that did not settle (without --force). Otherwise see `settledPlan`.
 */
export async function batchPlan(context: CleanContext, name: string): Promise<BatchPlan> {
  const folder = join(context.root, name);
  assertInside(context.root, folder);
  if (!isBatchId(name))
    return leftAlone(folder, 'its name is not a batch id, so it is not a batch; left alone');
  const kind = await pathKind(folder);
  if (kind !== 'folder')
    return leftAlone(
      folder,
      `${kind === 'link' ? 'a symbolic link' : 'not a folder'}, not a batch's; left alone`,
    );
  const recordingPath = join(folder, 'batch.jsonl');
  if ((await pathKind(recordingPath)) !== 'file')
    return leftAlone(folder, `batch ${name}: it holds no batch.jsonl file; left alone`);
  const text = await readFile(recordingPath, 'utf8');
  const recording = checkedRecording(text, name);
  if (typeof recording === 'string')
    return leftAlone(folder, `batch ${name}: its recording is not one ralph wrote: ${recording}; left alone`);
  const pid = recordedHostRuns(recording.process);
  if (pid !== undefined)
    return leftAlone(
      folder,
      `batch ${name} is still running in process ${pid}; left alone, even with --force`,
    );
  if (recording.settled === null && !context.force)
    return leftAlone(
      folder,
      `batch ${name} did not settle and its process is gone: go on with ralph batch TASKS --resume ${recordingPath}, or --force to remove it`,
    );
  return { ...(await settledPlan(context, folder, recording)), recording: text };
}

/**
 * A settled batch's plan. A task's worktree and branch go when all the branch's work is on the target or a branch
 * of the user's (or with --force), unless the branch is checked out in another worktree; the scratch tree goes; the session branch goes
 * when it was never landed on or a branch of the user's holds its work; the start tag and the folder go once
 * nothing of the batch stays.
 */
async function settledPlan(
  context: CleanContext,
  folder: string,
  recording: BatchRecording,
): Promise<Omit<BatchPlan, 'recording'>> {
  const { repo, force } = context;
  const { batchId, target } = recording.header;
  const remove: Removal[] = [];
  const keep: Kept[] = [];
  const registered = new Set(context.worktrees.map((entry) => entry.path));
  const checkedOut = new Map(
    context.worktrees.flatMap((entry) =>
      entry.branch === null ? [] : [[entry.branch, entry.path] as const],
    ),
  );
  const targetHead = await refValue(repo, `refs/heads/${target}`);
  const shownTarget = shown(target);

  /** Why a task's branch (at `head`, with its worktree `tree`) stays; null when it goes. */
  const taskKeptBecause = async (
    branch: string,
    head: string | null,
    tree: string,
  ): Promise<string | null> => {
    const holder = checkedOut.get(branch);
    if (holder !== undefined && holder !== tree) return `checked out in ${holder}`;
    if (force) return null;
    if (registered.has(tree)) {
      const dirty = await uncommittedPaths(tree);
      if (dirty > 0) return `its worktree has uncommitted changes in ${dirty} path(s); --force to delete`;
    }
    if (head === null) return null;
    const missing = targetHead === null ? null : await commitsNotOn(repo, branch, target);
    // Work on a branch of the user's is not lost either: merged there by hand, or the target merged and deleted.
    if (missing === 0 || (await userBranchHolding(repo, head)) !== null) return null;
    return missing === null
      ? `its target ${shownTarget} is gone; --force to delete`
      : `${missing} commit${missing === 1 ? '' : 's'} not on ${shownTarget}; --force to delete`;
  };

  for (const { id } of recording.header.tasks) {
    const branch = taskBranch(batchId, id);
    const tree = taskWorktree(folder, id);
    const head = await refValue(repo, `refs/heads/${branch}`);
    const treeKind = await pathKind(tree);
    if (head === null && treeKind === 'none') continue;
    const why = await taskKeptBecause(branch, head, tree);
    if (why === null) {
      if (treeKind !== 'none') remove.push({ kind: 'worktree', path: tree });
      if (head !== null) remove.push({ kind: 'branch', name: branch, value: head });
      continue;
    }
    if (head !== null) keep.push({ kind: 'branch', what: branch, why });
    if (treeKind !== 'none') keep.push({ kind: 'worktree', what: tree, why: `${branch} stays` });
  }
  const scratch = join(folder, '.merge');
  if ((await pathKind(scratch)) !== 'none') remove.push({ kind: 'worktree', path: scratch });

  if (target === sessionBranch(batchId) && targetHead !== null) {
    const why = await sessionKeptBecause(
      context,
      recording,
      targetHead,
      keep.length > 0,
      checkedOut.get(target),
    );
    if (why === null) remove.push({ kind: 'branch', name: target, value: targetHead });
    else keep.push({ kind: 'branch', what: target, why });
  }

  // A worktree in the folder that is none of the batch's would go with the folder: the folder stays then.
  const known = new Set([...recording.header.tasks.map((task) => taskWorktree(folder, task.id)), scratch]);
  const foreign = [...registered].find((path) => path.startsWith(`${folder}/`) && !known.has(path));
  const tag = startTag(batchId);
  const tagValue = await refValue(repo, `refs/tags/${tag}`);
  const why =
    foreign !== undefined
      ? `it holds the worktree ${foreign}, which is none of the batch's tasks`
      : keep.length > 0
        ? `batch ${batchId} still has what is kept above`
        : null;
  if (why === null) {
    if (tagValue !== null) remove.push({ kind: 'tag', name: tag, value: tagValue });
    remove.push({ kind: 'folder', path: folder });
  } else {
    if (tagValue !== null) keep.push({ kind: 'tag', what: tag, why });
    keep.push({ kind: 'folder', what: folder, why });
  }
  return { folder, remove, keep };
}

/**
 * Why a batch's own session branch (at `head`) stays, or null when it goes: it goes when it was never landed on
 * (still at the start commit) or a branch of the user's holds its work, or with --force; it stays while it is
 * checked out, or while some branch of the batch stays (their work lands there).
 */
async function sessionKeptBecause(
  context: CleanContext,
  recording: BatchRecording,
  head: string,
  tasksKept: boolean,
  holder: string | undefined,
): Promise<string | null> {
  if (holder !== undefined) return `checked out in ${holder}`;
  if (tasksKept && !context.force) return 'the target of the branches kept above';
  const { start } = recording.header;
  if (context.force || head === start) return null;
  if ((await userBranchHolding(context.repo, head)) !== null) return null;
  const landed = await commitsBetween(context.repo, start, head);
  return `its ${landed} landed commit${landed === 1 ? ' is' : 's are'} on no branch of yours; merge it, or --force to delete`;
}
