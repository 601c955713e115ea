import type { TasksTrustOptions } from '../../batch/tasks-trust.js';
import { RalphError } from '../../contract/errors.js';
import type { GitHubTasksOptions } from './batch-github-tasks.js';
import type { SubmitOptions } from './submit-command.js';

/** The options `ralph submit --batch` adds to those of `ralph submit`. */
export interface SubmitBatchOptions extends SubmitOptions, TasksTrustOptions, GitHubTasksOptions {
  /** The tasks file; `true` for `--batch` without one (its tasks then come from `--from-github`). */
  batch?: string | true;
  /** The repository's URL every worker clones and pushes to. */
  repo?: string;
  /** The branch the batch lands on (default: a new branch `ralph/batch-<id>` from the remote's HEAD). */
  into?: string;
  /** A conflict at a landing goes to a resolver loop of the task's agent (needs --verify). */
  resolveConflicts?: boolean;
  /** `pr`: each task goes out as a pull request, opened by a worker with `--allow-github` (its token). */
  land?: string;
  /** With `--land pr`: a task after another opens its pull request against that task's branch. */
  stack?: boolean;
  /** With `--land pr`: the repository the pull requests are opened on. */
  githubRepo?: string;
  /** With `--land pr`: where the batch's report page is published. */
  reportUrl?: string;
}

/** The command's name, as its refusals and stderr lines begin. */
export const SUBMIT_BATCH = 'ralph submit --batch';

/** A refusal of `ralph submit --batch`: nothing was submitted. */
export const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });
