import { join } from 'node:path';
import type { RalphSandbox } from '../contract/sandbox.js';
import { assertSandboxAvailable } from '../process/sandbox-check.js';
import { type SandboxOptions, sandboxConfig } from '../run/sandbox-options.js';
import { gitLine } from '../workspace/git-command.js';

/**
 * Refuses, before a batch begins, a sandbox setting without `--sandbox` and a `--sandbox` where bubblewrap cannot
 * run: each task would otherwise fail its loop on it, after the batch's branch was made.
 */
export async function assertBatchSandbox(options: SandboxOptions): Promise<void> {
  if (sandboxConfig(options).sandbox !== undefined) await assertSandboxAvailable();
}

/**
 * What a sandboxed task's processes must not see of the repository's git folder, which they may write (a worktree's
 * commits need it): ralph's folder there (every batch's recordings, the other tasks' worktrees) and the private git
 * folders of the other worktrees. A task's own worktree and git folder lie deeper, and are bound back over them.
 */
export async function batchHiddenPaths(options: SandboxOptions, repo: string): Promise<string[]> {
  if (options.sandbox !== true) return [];
  const common = await gitLine(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return [join(common, 'ralph'), join(common, 'worktrees')];
}

/** The merge queue's sandbox, in which its verify command runs: the batch's, hiding `hide`; none without --sandbox. */
export function mergeSandbox(options: SandboxOptions, hide: readonly string[]): { sandbox?: RalphSandbox } {
  const { sandbox } = sandboxConfig(options, hide);
  return sandbox === undefined ? {} : { sandbox };
}
