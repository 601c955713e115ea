// A fleet batch task landed as a pull request (`ralph submit --batch --land pr`): the worker that took it, started with
// `--allow-github`, pushes its branch to GitHub's repository and opens the pull request with its own token — never
// the submitter's, which never reaches the database. Only a task that passed its loop and its verify on the target's
// tree gets one marked ready; any other gets a draft labelled `ralph: needs-review` (or only an issue comment when it
// left no commits). `landAsPull` finds a former run's pull request by its branch and marker, so a takeover or a second
// submit of the same issues updates it, never opens a second.
import { draftNotOpened, noGitHubWorker, pullPushRefused } from '../contract/fleet-pull-messages.js';
import { githubTokenLacks } from '../contract/github-messages.js';
import { isPlainHttpUrl } from '../contract/plain-http-url.js';
import { type PullOutcome, pushedCommitIn } from '../contract/pull-messages.js';
import type { RalphResultStatus } from '../contract/types.js';
import type { GitHubApi, RepoRef } from '../github/github-api.js';
import {
  formerPull,
  isDecided,
  issueOfTask,
  type LandingDeps,
  landAsPull,
  pullBranchOf,
} from '../github/pull-landing.js';
import { isRepoRef } from '../github/repo-ref.js';
import { pushBranch, remoteHead } from '../workspace/git-remote.js';
import { type BatchFolders, branchOf, withClone } from './batch-clone.js';
import type { BatchTaskResult, FleetBatchTask, FleetPull } from './batch-input.js';
import type { FleetOutcome } from './run-input.js';

/** A task of a `--land pr` batch, its row's pull-request fields checked (`pullRowProblem`). */
export type PullBatchTask = FleetBatchTask & { land: 'pr'; github: RepoRef };

/** Whether a task lands as a pull request (its row checked already). */
export const isPullTask = (task: FleetBatchTask): task is PullBatchTask => task.land === 'pr';

const shown = (value: unknown) => JSON.stringify(value) ?? String(value);

/**
 * Why the worker refuses a task row's pull-request fields, or null: `land` is `pr` or absent, and with it the
 * repository is an `{owner, repo}` by GitHub's rule, `stack` a boolean and the report URL an http(s) URL; without it
 * none of them is there. A row is anyone's who can write to the database: checked where it is used.
 */
export function pullRowProblem(task: FleetBatchTask): string | null {
  const row = task as unknown as Record<string, unknown>;
  if (row.land === undefined) {
    const stray = (['stack', 'github', 'reportUrl'] as const).find((key) => row[key] !== undefined);
    return stray === undefined
      ? null
      : `its ${stray} is refused: it is for a batch that lands as pull requests`;
  }
  if (row.land !== 'pr') return `its land ${shown(row.land)} is refused: it is "pr" or absent`;
  if (!isRepoRef(row.github))
    return `its GitHub repository ${shown(row.github)} is refused: it is no {owner, repo} by GitHub's rule`;
  if (row.stack !== undefined && typeof row.stack !== 'boolean')
    return `its stack ${shown(row.stack)} is refused: it is true, false or absent`;
  if (row.reportUrl !== undefined && !isPlainHttpUrl(row.reportUrl))
    return `its report URL ${shown(row.reportUrl)} is refused: it is no http(s) URL`;
  return null;
}

/** Why this worker refuses a `--land pr` task, or null: it opens pull requests only with `--allow-github`. */
export const pullRefusal = (
  worker: { workerId: string; github?: FleetGitHub | undefined },
  task: FleetBatchTask,
): string | null =>
  task.land === 'pr' && worker.github === undefined ? noGitHubWorker(worker.workerId) : null;

/** The worker's GitHub (`ralph worker --allow-github`): its own token's client, each repository's access asked once. */
export interface FleetGitHub {
  /** The client, the repository and the token's login; rejects naming what the token lacks on it. */
  accessTo(repo: RepoRef): Promise<Omit<LandingDeps, 'push'>>;
}

/**
 * The worker's GitHub over its client: the token's access to a repository is asked when the repository is first
 * used (a refusal is asked again next time: its rights may have been given meanwhile).
 */
export function fleetGitHub(api: GitHubApi): FleetGitHub {
  const asked = new Map<string, Promise<Omit<LandingDeps, 'push'>>>();
  return {
    accessTo(repo) {
      const name = `${repo.owner}/${repo.repo}`;
      let access = asked.get(name);
      if (access === undefined) {
        access = api.tokenAccess(repo).then(({ login, missing }) => {
          if (missing.length > 0) throw new Error(githubTokenLacks(login, name, missing));
          return { api, repo, login };
        });
        asked.set(name, access);
        access.catch(() => asked.delete(name));
      }
      return access;
    },
  };
}

/** What the fleet knows of a task's run, for its pull request: its last report, rounds, cost and evaluator. */
export interface RunFacts {
  report: string;
  rounds: number;
  costUsd: number | null;
  evaluator: { accepted: boolean; verdict: string } | null;
}

/** A run's facts from its outcome (a failed run's: none but its cost). */
export function runFactsOf(outcome: FleetOutcome, costUsd: number | null): RunFacts {
  if (!outcome.ok) return { report: '', rounds: 0, costUsd, evaluator: null };
  const { report, rounds, evaluation } = outcome.envelope.result;
  return {
    report: report.summary,
    rounds,
    costUsd,
    evaluator:
      evaluation === undefined
        ? null
        : {
            accepted: evaluation.verdict === 'accept',
            verdict: [...evaluation.findings, ...evaluation.evidence].join('\n'),
          },
  };
}

/** What became of a task whose loop did not complete, as its draft tells it. */
export function loopOutcomeOf(outcome: FleetOutcome, budgetSpent: boolean): PullOutcome {
  if (budgetSpent) return 'budget-limited';
  if (!outcome.ok) return 'failed';
  const status: RalphResultStatus = outcome.envelope.result.status;
  return status === 'budget-limited' ? 'budget-limited' : 'needs-review';
}

/** One task's pull request to open (or update) on the fleet. */
export interface FleetPullLanding {
  objective: string;
  outcome: PullOutcome;
  why: string | null;
  /** The commit to push to the task's branch on GitHub; null: the task left none (only its issue is told). */
  head: string | null;
  /** The branch it goes into: the target, or (stacked) the branch of the task it comes after. */
  base: string;
  facts: RunFacts;
}

/**
 * Opens (or, re-run, updates) a task's pull request with the worker's token: its commit pushed leased (only over
 * what ralph pushed there last) from the worker's clone to the task's stable branch (`pullBranchOf`), a ready pull
 * request only for a task that passed. Returns the pull request, or null when only its issue was told.
 */
export async function pullOnFleet(
  folders: BatchFolders,
  github: FleetGitHub,
  task: PullBatchTask,
  landing: FleetPullLanding,
): Promise<FleetPull | null> {
  const access = await github.accessTo(task.github);
  const pullBranch = pullBranchOf(task.taskId, landing.objective);
  const push: LandingDeps['push'] = async (from, to, lease) => {
    const pushed = await withClone(folders, task.repo, (clone) => pushBranch(clone, from, to, lease), {
      fetch: false,
    });
    if (!pushed) throw new Error(pullPushRefused(to));
  };
  const verify = task.verify;
  const landed = await landAsPull(
    { ...access, push },
    {
      batchId: task.batchId,
      taskId: task.taskId,
      outcome: landing.outcome,
      why: landing.why,
      ...landing.facts,
      verify:
        verify === null || landing.outcome === 'blocked'
          ? null
          : {
              command: verify,
              passed: landing.outcome === 'passed',
              output: landing.outcome === 'passed' ? '' : (landing.why ?? ''),
            },
      reportUrl: task.reportUrl ?? null,
      recording: null,
      issue: issueOfTask(task.taskId),
      pullBranch,
      pushed: landing.head,
      branch: landing.head,
      base: landing.base,
      title: landing.objective.split('\n')[0]?.slice(0, 200) || task.taskId,
    },
  );
  if (landed.pull === null) return null;
  return { url: landed.pull.htmlUrl, branch: pullBranch, head: landing.head, draft: landed.pull.draft };
}

/**
 * The draft of a task whose loop did not complete (or whose landing needs review): its branch's commit on the
 * remote when it has any beyond `start` (else only its issue is told), opened as a draft labelled needs-review.
 * GitHub or the push refusing it is said in the result's detail; the task's result is otherwise unchanged.
 */
export async function draftOnFleet(
  folders: BatchFolders,
  github: FleetGitHub,
  task: PullBatchTask,
  result: BatchTaskResult,
  landing: Omit<FleetPullLanding, 'head'> & { start: string },
): Promise<BatchTaskResult> {
  try {
    const head = await withClone(folders, task.repo, (clone) => remoteHead(clone, branchOf(task)));
    const pull = await pullOnFleet(folders, github, task, {
      ...landing,
      head: head === null || head === landing.start ? null : head,
    });
    return pull === null ? result : { ...result, pull };
  } catch (error) {
    return { ...result, detail: `${result.detail}; ${draftNotOpened(errorLine(error))}` };
  }
}

/** The first line of why a pull request was not opened. */
export const errorLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/** A commit id as git prints it (SHA-1, or SHA-256). */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A task's branch on GitHub as `pullBranchOf` makes it: `ralph/gh-7`, `ralph/<task-id>-<8 hex>`. */
const PULL_BRANCH = /^ralph\/[a-z0-9][a-z0-9._-]*$/i;

/**
 * Why the worker refuses what a landing's input says of its pull request, or null: the landing's row is written by
 * the task's run, but stored where anyone who can write to the database could change it; its stacked-on branch goes
 * to GitHub and its commit to git.
 */
export function landingPullProblem(pull: unknown): string | null {
  if (typeof pull !== 'object' || pull === null) return 'its pull request is no object';
  const { objective, stackedOn } = pull as Record<string, unknown>;
  if (typeof objective !== 'string') return 'its objective is no text';
  if (stackedOn === null) return null;
  const on = (typeof stackedOn === 'object' ? stackedOn : {}) as Record<string, unknown>;
  if (typeof on.branch !== 'string' || !PULL_BRANCH.test(on.branch) || on.branch.includes('..'))
    return `its stacked-on branch ${shown(on.branch)} is refused: it is no task's branch on GitHub`;
  if (typeof on.head !== 'string' || !COMMIT_ID.test(on.head))
    return `its stacked-on commit ${shown(on.head)} is refused: it is no commit id`;
  return null;
}

/** A former run's pull request of a task that a person has decided on (closed) or is deciding on (ready). */
export interface DecidedPull {
  pull: FleetPull;
  state: 'open' | 'closed';
}

/**
 * The pull request a former run (of any batch) opened for the task, when a person has it — ready for review, or
 * closed: the task is not run again, as `ralph batch --land pr` does not. Null when there is none, it is a draft, or
 * GitHub cannot say (the task then runs, and its landing says what GitHub answers).
 */
export async function decidedPull(
  github: FleetGitHub,
  task: PullBatchTask,
  objective: string,
): Promise<DecidedPull | null> {
  try {
    const access = await github.accessTo(task.github);
    const branch = pullBranchOf(task.taskId, objective);
    const former = await formerPull(access, branch);
    if (former === undefined || !isDecided(former)) return null;
    return {
      pull: { url: former.htmlUrl, branch, head: pushedCommitIn(former.body), draft: former.draft },
      state: former.state,
    };
  } catch {
    return null;
  }
}
