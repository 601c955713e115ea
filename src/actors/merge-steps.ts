import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RalphSandbox } from '../contract/sandbox.js';
import type { BringOutcome, CombinedVerify, MergeItem } from '../machines/batch-types.js';
import { takeRoundFolder } from '../process/round-folder.js';
import { git, gitLine } from '../workspace/git-command.js';
import { fastForwardTarget } from '../workspace/git-land.js';
import { rebaseOnto } from '../workspace/git-rebase.js';
import { addDetachedWorktree, removeWorktree } from '../workspace/git-worktree.js';
import { runVerifyCommand } from './verify-command.js';

/** How much of a failing verify command's output the needs-review record keeps. */
export const MERGE_VERIFY_TAIL_CHARS = 4_000;

/** What the merge steps work with: the batch's repository, target, worktree folder and each task's verify. */
export interface MergeSetup {
  batchId: string;
  repo: string;
  target: string;
  /** The batch's folder of worktrees; the scratch tree is `<folder>/.merge`. */
  folder: string;
  /** The verify command of a task (argv), or null when the task has none. */
  verifyOf(taskId: string): readonly string[] | null;
  verifyTimeoutMs: number;
  terminationGraceMs: number;
  /** The sandbox the verify command runs in (`--sandbox`); absent, it runs as the user. */
  sandbox?: RalphSandbox;
}

/** The variable naming the round folder that marks a merge's verify command as this process's (for the sweep). */
const MERGE_FOLDER_ENV = 'RALPH_MERGE_FOLDER';

/** The scratch worktree every merge is made in, one at a time. */
export const scratchPath = (setup: MergeSetup): string => join(setup.folder, '.merge');

/** A task's own worktree. */
export const taskWorktree = (folder: string, taskId: string): string => join(folder, taskId);

/** Removes the scratch tree when one is there (left by a merge that needed review, or by a crash). */
async function clearScratch(setup: MergeSetup): Promise<void> {
  if (existsSync(scratchPath(setup))) await removeWorktree(setup.repo, scratchPath(setup));
}

/** Rebases the task's branch onto the target's head in a fresh scratch worktree; a conflict leaves no scratch. */
export async function bringOntoTarget(setup: MergeSetup, item: MergeItem): Promise<BringOutcome> {
  await clearScratch(setup);
  const onto = await gitLine(setup.repo, ['rev-parse', '--verify', `refs/heads/${setup.target}^{commit}`]);
  await addDetachedWorktree(setup.repo, scratchPath(setup), `refs/heads/${item.branch}`);
  const outcome = await rebaseOnto(scratchPath(setup), onto);
  if (outcome.kind === 'conflict') {
    await clearScratch(setup);
    return outcome;
  }
  return { kind: 'rebased', head: outcome.head, onto };
}

/**
 * Runs the task's verify command on the combined tree in the scratch worktree; no command passes. `env`, when
 * given, is the command's environment in place of this process's.
 */
export async function verifyCombined(
  setup: MergeSetup,
  item: MergeItem,
  signal: AbortSignal,
  env?: NodeJS.ProcessEnv,
): Promise<CombinedVerify> {
  const argv = setup.verifyOf(item.taskId);
  if (argv === null) return { passed: true, outputTail: '' };
  const outcome = await runVerifyCommand(
    {
      cwd: scratchPath(setup),
      verify: { argv: [...argv], timeoutMs: setup.verifyTimeoutMs, maxOutputChars: MERGE_VERIFY_TAIL_CHARS },
      terminationGraceMs: setup.terminationGraceMs,
      ...(env === undefined ? {} : { env }),
      // Its marker passes the sandbox's allow-list: the sweep finds the command by it.
      ...(setup.sandbox === undefined
        ? {}
        : { sandbox: { ...setup.sandbox, env: [...setup.sandbox.env, MERGE_FOLDER_ENV] } }),
    },
    { signal },
  );
  const passed = outcome.exitCode === 0 && !outcome.timedOut;
  const how = outcome.timedOut
    ? 'it timed out'
    : outcome.signal === null
      ? `exit ${outcome.exitCode}`
      : outcome.signal;
  return { passed, outputTail: passed ? '' : `(${how})\n${outcome.outputTail}` };
}

/**
 * Moves the target to the combined head, only from the head the rebase was made onto; then the scratch tree and
 * the task's own worktree go (its branch stays).
 */
export async function landOnTarget(
  setup: MergeSetup,
  item: MergeItem & { head: string; onto: string },
): Promise<void> {
  await fastForwardTarget(
    setup.repo,
    setup.target,
    item.head,
    item.onto,
    `ralph batch ${setup.batchId}: land ${item.taskId}`,
  );
  await clearScratch(setup);
  await removeWorktree(setup.repo, taskWorktree(setup.folder, item.taskId));
}

/**
 * Lands a task as a pull request will take it (`ralph batch --land pr`): its own branch moved to the head that was
 * rebased onto the target and verified there; the target itself stays where it is.
 */
export async function landOnOwnBranch(
  setup: MergeSetup,
  item: MergeItem & { head: string; onto: string },
): Promise<void> {
  await git(setup.repo, [
    'update-ref',
    '-m',
    `ralph batch ${setup.batchId}: ${item.taskId} onto ${setup.target}`,
    `refs/heads/${item.branch}`,
    item.head,
  ]);
  await clearScratch(setup);
  await removeWorktree(setup.repo, taskWorktree(setup.folder, item.taskId));
}

/**
 * Runs the merge's verify command (as `verifyCombined`) with a round folder of this process named in its
 * environment: when this process dies by SIGKILL, the sweep that a resumed batch (or a fleet worker's reaper) runs
 * finds the command by that folder and kills it, as it kills the dead process's agents, so no verify command
 * outlives the batch that started it.
 */
export async function verifyCombinedOwned(
  setup: MergeSetup,
  item: MergeItem,
  signal: AbortSignal,
): Promise<CombinedVerify> {
  const folder = takeRoundFolder('{}');
  try {
    const env = { ...process.env, [MERGE_FOLDER_ENV]: join(folder.dir, 'merge') };
    return await verifyCombined(setup, item, signal, env);
  } finally {
    folder.release();
  }
}
