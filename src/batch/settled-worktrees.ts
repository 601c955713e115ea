import { existsSync } from 'node:fs';
import { type MergeSetup, scratchPath, taskWorktree } from '../actors/merge-steps.js';
import type { BatchOutput } from '../machines/batch.machine.js';
import { pruneWorktrees, removeWorktree } from '../workspace/git-worktree.js';
import type { OpenBatch } from './open.js';

/** Landed tasks' worktrees went as they landed; cancelled ones go now (their work is committed on their branch). */
export async function removeWorktrees(
  output: BatchOutput,
  session: OpenBatch,
  merge: MergeSetup,
): Promise<{ kept: Set<string>; workOnBranch: Set<string> }> {
  const kept = new Set<string>();
  const workOnBranch = new Set<string>();
  for (const task of output.tasks) {
    const tree = taskWorktree(session.folder, task.id);
    if (!existsSync(tree)) continue;
    if (task.status === 'needs-review' || task.status === 'failed') kept.add(task.id);
    else {
      await removeWorktree(session.repo, tree);
      if (task.status === 'cancelled') workOnBranch.add(task.id);
    }
  }
  if (existsSync(scratchPath(merge))) await removeWorktree(session.repo, scratchPath(merge));
  await pruneWorktrees(session.repo);
  return { kept, workOnBranch };
}
