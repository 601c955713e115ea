import type { TasksTrustOptions } from '../../batch/tasks-trust.js';
import type { LandingDeps } from '../../github/pull-landing.js';
import type { AskOptions } from '../../run/ask-options.js';
import type { AgentOptions } from './agent-options.js';
import type { CleanOptions } from './batch-clean.js';
import type { GitHubTasksOptions } from './batch-github-tasks.js';
import type { EvaluatorOptions } from './evaluator-options.js';
import type { GuardRailOptions } from './guard-rail-options.js';
import type { NotifyOptions } from './notify-options.js';
import type { SandboxOptions } from './sandbox-options.js';

/** The options of `ralph batch`. */
export interface BatchOptions
  extends AgentOptions,
    AskOptions,
    GuardRailOptions,
    EvaluatorOptions,
    SandboxOptions,
    NotifyOptions,
    TasksTrustOptions,
    CleanOptions,
    GitHubTasksOptions {
  maxRounds?: string;
  parallel?: string;
  into?: string;
  rollback?: string;
  /** With `rollback`: the remote of a fleet batch (`ralph submit --batch --repo URL`). */
  repo?: string;
  resolveConflicts?: boolean;
  resume?: string;
  /**
   * `--land pr`: each task that passed opens its own pull request (see batch-land-mode.ts); `--land <batch-id>`: lands
   * that batch's task (the tasks argument names it) after a person fixed its branch.
   */
  land?: string;
  /** With `--land pr`: a task that comes `after` another opens its pull request against that task's branch. */
  stack?: boolean;
  /** With `--land pr`: where the batch's report page is published; each pull request links it. */
  reportUrl?: string;
}

/**
 * How a `--land pr` batch reaches GitHub: the client, the repository and the push of a branch, made once the options
 * are read and before anything starts (a token without the rights it needs is refused then). The CLI's entry point
 * passes the Octokit one; tests pass an in-memory one.
 */
export type ConnectGitHub = (
  cwd: string,
  options: BatchOptions,
  say: (line: string) => void,
) => Promise<LandingDeps>;
