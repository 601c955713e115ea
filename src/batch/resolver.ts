import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type MergeSetup, scratchPath } from '../actors/merge-steps.js';
import { resolverObjective, resolverVerdict } from '../actors/resolver-steps.js';
import type { ConflictItem, ResolveOutcome } from '../machines/batch-types.js';
import type { AskOptions } from '../run/ask-options.js';
import { parseNumberOption } from '../run/numbers.js';
import { createOptionsTool } from '../run/options-tool.js';
import { gitLine } from '../workspace/git-command.js';
import { finishMerge, startMerge } from '../workspace/git-merge.js';
import { addDetachedWorktree, removeWorktree } from '../workspace/git-worktree.js';
import { taskTrailerValue } from '../workspace/task-commit-message.js';
import type { LoopSetup } from './loops.js';

/**
 * `--resolve-conflicts`: in the scratch worktree, merges the task's branch into the target's head and hands the
 * conflicts to a Ralph loop of fresh agents (the batch's agent options, the run machine unchanged). A loop that
 * completes with no conflict marker left gives the merge commit, which the queue then verifies before it lands;
 * anything else is unresolved, and the task needs review.
 */
export async function resolveConflicts(
  merge: MergeSetup,
  loops: Pick<LoopSetup, 'options' | 'say' | 'hide'>,
  item: ConflictItem,
  signal: AbortSignal,
): Promise<ResolveOutcome> {
  const scratch = scratchPath(merge);
  if (existsSync(scratch)) await removeWorktree(merge.repo, scratch);
  const onto = await gitLine(merge.repo, ['rev-parse', '--verify', `refs/heads/${merge.target}^{commit}`]);
  await addDetachedWorktree(merge.repo, scratch, onto);
  const files = await startMerge(scratch, item.branch);
  // The merge commit lands as the task's head: its trailer marks it the batch's, as a task's own commit is.
  const message = (how: string) =>
    `ralph batch ${merge.batchId}: task ${item.taskId} onto ${merge.target}, ${how}\n\nRalph-Task: ${taskTrailerValue(merge.batchId, item.taskId)}`;
  if (files.length === 0)
    return { kind: 'resolved', head: await finishMerge(scratch, message('merged cleanly')), onto };
  loops.say(item.taskId, `a resolver loop takes the conflicts in ${files.join(', ')}`);
  // The batch's agent without its evaluator: a resolved merge is judged by the verify command on the combined tree,
  // and the evaluator judged each task's own objective before the task joined the queue.
  const {
    evaluator: _evaluator,
    evaluatorCommand: _evaluatorCommand,
    evaluatorReportsCost: _reportsCost,
    // The resolver's loop asks nobody: a conflict it cannot resolve is left for review.
    ask: _ask,
    waitForAnswers: _waitForAnswers,
    ...options
  } = loops.options as typeof loops.options & AskOptions;
  const { tool, agent } = createOptionsTool(
    { ...options, cwd: scratch },
    { agentId: `batch:${merge.batchId}:resolve`, hide: loops.hide },
  );
  const maxRounds =
    options.maxRounds === undefined ? {} : { maxRounds: parseNumberOption(options.maxRounds) };
  const envelope = await tool.execute(
    { objective: resolverObjective(merge.target, item.taskId, files), ...maxRounds },
    { agent, signal, record: join(merge.folder, 'runs', `${item.taskId}.resolve.jsonl`) },
  );
  const verdict = await resolverVerdict(scratch, files, envelope, message);
  return verdict.kind === 'resolved' ? { ...verdict, onto } : verdict;
}
