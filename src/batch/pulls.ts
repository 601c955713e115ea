import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { BatchTask } from '../contract/batch-tasks.js';
import type { PullOutcome } from '../contract/pull-messages.js';
import {
  formerPull,
  isDecided,
  issueOfTask,
  type LandingDeps,
  landAsPull,
  type PullLanded,
  type PullTask,
  pullBase,
  pullBranchOf,
} from '../github/pull-landing.js';
import { type BatchRecording, readBatchRecording } from '../inspect/batch-recording.js';
import type { RunModel } from '../inspect/run-model.js';
import { buildRunModel } from '../inspect/run-model-builder.js';
import type { TaskStatus } from '../machines/batch-types.js';
import { GitError, git, gitLine } from '../workspace/git-command.js';
import { taskBranch } from '../workspace/git-session.js';
import { batchRunPath } from './run-path.js';

/**
 * A push of a local repository's branch to a branch of `remote` (a remote's name or URL) with the git CLI, leased:
 * it overwrites only the commit ralph pushed there last (or, with no lease, only creates the branch), so a person's
 * commits pushed since are never lost — git refuses, and the task says so.
 */
export function gitPusher(cwd: string, remote: string): LandingDeps['push'] {
  return async (from, to, lease) => {
    await git(cwd, [
      'push',
      '--quiet',
      `--force-with-lease=refs/heads/${to}:${lease ?? ''}`,
      remote,
      `refs/heads/${from}:refs/heads/${to}`,
    ]);
  };
}

/**
 * What a settled task of a `--land pr` batch tells its pull request: `landed` (its loop completed, its verify passed
 * on the target's tree and its evaluator, where there is one, accepted) is the one that passed; a task still waiting,
 * running or cancelled is told nothing (a `--resume` goes on with it).
 */
export function pullOutcomeOf(status: TaskStatus | (string & {}), note: string | null): PullOutcome | null {
  if (status === 'landed') return 'passed';
  if (status === 'needs-review') return 'needs-review';
  if (status === 'skipped') return 'blocked';
  if (status === 'failed') return note?.startsWith('budget-limited') === true ? 'budget-limited' : 'failed';
  return null;
}

export { issueOfTask } from '../github/pull-landing.js';

/** What a task's run recording says for its pull request: the last report, rounds, cost, the evaluator's verdict. */
function runFacts(model: RunModel | null): Pick<PullTask, 'report' | 'rounds' | 'costUsd' | 'evaluator'> {
  if (model === null) return { report: '', rounds: 0, costUsd: null, evaluator: null };
  const reported = model.rounds.filter((round) => round.report !== null);
  const last = reported[reported.length - 1];
  const evaluation = [...model.rounds].reverse().find((round) => round.evaluation !== undefined)?.evaluation;
  const verdict = evaluation?.verdict ?? null;
  return {
    report: last?.report?.summary ?? '',
    rounds: model.rounds.length,
    costUsd: model.usage?.costUsd ?? null,
    evaluator:
      evaluation === undefined
        ? null
        : {
            accepted: verdict?.verdict === 'accept',
            verdict:
              verdict === null
                ? `no verdict (${evaluation.outcome})`
                : [...verdict.findings, ...verdict.evidence].join('\n'),
          },
  };
}

function readRun(recordingPath: string, recording: BatchRecording, taskId: string): RunModel | null {
  const file = recording.header.runs[taskId];
  if (file === undefined) return null;
  try {
    const path = batchRunPath(recordingPath, taskId, file);
    return path === null ? null : buildRunModel(readFileSync(path, 'utf8'));
  } catch {
    // A run recording cut short by a crash: the pull request says what the batch knew.
    return null;
  }
}

/** The tasks in an order where each comes after the tasks it names in `after` (a stacked base is pulled first). */
function afterFirst<T extends { id: string; after: string[] }>(tasks: readonly T[]): T[] {
  const done = new Set<string>();
  const ordered: T[] = [];
  let left = [...tasks];
  while (left.length > 0) {
    const ready = left.filter((task) =>
      task.after.every((id) => done.has(id) || !tasks.some((t) => t.id === id)),
    );
    const next = ready.length === 0 ? left : ready; // a cycle is refused when the tasks are read; never loop forever
    for (const task of next) {
      ordered.push(task);
      done.add(task.id);
    }
    left = left.filter((task) => !done.has(task.id));
  }
  return ordered;
}

/** What a `--land pr` batch's pull requests need besides GitHub: its recording, target, stacking and report link. */
export interface BatchPullsSetup {
  recordingPath: string;
  /** The branch each pull request goes into (unless stacked). */
  target: string;
  stack: boolean;
  /** The link to the batch's report page, when it is published somewhere a reviewer can open (`--report-url`). */
  reportUrl: string | null;
  /** The recording's path relative to the repository (what `ralph report` is given there). */
  recording: string;
  /** Whether the task's branch holds commits of its own (a failed task with none gets only an issue comment). */
  hasChanges(branch: string): Promise<boolean>;
  /** The commit the task's local branch is at (what is pushed). */
  headOf(branch: string): Promise<string>;
}

/** What a task's landing as a pull request said: opened, updated, left, or only commented. */
function landedLine(result: PullLanded): string {
  if (result.pull === null) return 'no branch with changes: commented on its issue';
  if (result.action === 'left')
    return result.pull.state === 'closed'
      ? `its pull request ${result.pull.htmlUrl} was closed: left as it is`
      : `its pull request ${result.pull.htmlUrl} is ready for review: left as it is`;
  return `pull request ${result.action} ${result.pull.htmlUrl}${result.pull.draft ? ' (draft: needs review)' : ''}`;
}

/**
 * Lands each settled task of a batch as its own pull request, from its recording: ready for a task that passed, a
 * labelled draft (or, with no branch, an issue comment) for any other; with `stack`, a task whose `after` names a
 * task with a pull request goes into that task's branch. Says each as it goes; a task GitHub or the push refused is
 * said with why and left out of the result (the others go on).
 */
export async function landBatchAsPulls(
  deps: LandingDeps,
  setup: BatchPullsSetup,
  say: (taskId: string, text: string) => void,
): Promise<Map<string, PullLanded>> {
  const recording = readBatchRecording(readFileSync(setup.recordingPath, 'utf8'));
  const { batchId } = recording.header;
  const pulled = new Map<string, string>();
  const landed = new Map<string, PullLanded>();
  for (const task of afterFirst(recording.header.tasks)) {
    const last = recording.tasks.get(task.id);
    const outcome = pullOutcomeOf(last?.status ?? 'waiting', last?.note ?? null);
    if (outcome === null) continue;
    const branch = taskBranch(batchId, task.id);
    const head = (await setup.hasChanges(branch)) ? await setup.headOf(branch) : null;
    const verify = task.verify ?? null;
    const pullBranch = pullBranchOf(task.id, task.objective);
    const pullTask: PullTask = {
      batchId,
      taskId: task.id,
      outcome,
      why: outcome === 'passed' ? null : (last?.note ?? null),
      ...runFacts(readRun(setup.recordingPath, recording, task.id)),
      verify:
        verify === null || outcome === 'blocked'
          ? null
          : {
              command: verify,
              passed: outcome === 'passed',
              output: outcome === 'passed' ? '' : (last?.note ?? ''),
            },
      reportUrl: setup.reportUrl,
      recording: setup.recording,
      issue: issueOfTask(task.id),
      pullBranch,
      pushed: head,
      branch: head === null ? null : branch,
      base: pullBase(task.after, pulled, setup.target, setup.stack),
      title: task.objective.split('\n')[0]?.slice(0, 200) || task.id,
    };
    let result: PullLanded;
    try {
      result = await landAsPull(deps, pullTask);
    } catch (error) {
      say(task.id, pullRefusedLine(pullBranch, error));
      continue;
    }
    if (result.pull !== null) pulled.set(task.id, pullBranch);
    landed.set(task.id, result);
    say(task.id, landedLine(result));
  }
  return landed;
}

/** Why a task's pull request was not opened: GitHub's answer, or git's refusal to push over commits ralph did not push. */
function pullRefusedLine(pullBranch: string, error: unknown): string {
  if (error instanceof GitError)
    return `no pull request: git would not push ${pullBranch} (it has commits ralph did not push there, or the remote refused): ${error.message.split('\n')[0]}`;
  return `no pull request: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * The tasks of a `--land pr` batch without those whose pull request (opened by a former run, of any batch) a person
 * has decided on — closed, or open and ready for review: they are not run again, and are said with their pull
 * request. Tasks that came after one of them no longer wait for it (its work is on GitHub, not in this batch).
 */
export async function tasksStillToPull(
  deps: Pick<LandingDeps, 'api' | 'repo'>,
  tasks: readonly BatchTask[],
  say: (taskId: string, text: string) => void,
): Promise<BatchTask[]> {
  const decided = new Set<string>();
  for (const task of tasks) {
    const former = await formerPull(deps, pullBranchOf(task.id, task.objective));
    if (former === undefined || !isDecided(former)) continue;
    decided.add(task.id);
    say(
      task.id,
      former.state === 'closed'
        ? `not run: its pull request ${former.htmlUrl} was closed`
        : `not run: its pull request ${former.htmlUrl} is ready for review`,
    );
  }
  return tasks
    .filter((task) => !decided.has(task.id))
    .map((task) => ({ ...task, after: task.after.filter((id) => !decided.has(id)) }));
}

/**
 * Opens the pull requests of a settled `--land pr` batch (landBatchAsPulls), each task's branch against the batch's
 * start; with `stack`, a task after another goes into that task's branch.
 */
export function landSessionAsPulls(
  deps: LandingDeps,
  session: { repo: string; target: string; start: string; recordingPath: string },
  how: { stack: boolean; reportUrl: string | null },
  say: (taskId: string, text: string) => void,
): Promise<Map<string, PullLanded>> {
  const { repo, recordingPath } = session;
  return landBatchAsPulls(
    deps,
    {
      recordingPath,
      target: session.target,
      stack: how.stack,
      reportUrl: how.reportUrl,
      recording: relative(repo, recordingPath),
      hasChanges: async (branch) =>
        (await gitLine(repo, ['rev-list', '--count', `${session.start}..refs/heads/${branch}`])) !== '0',
      headOf: (branch) => gitLine(repo, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`]),
    },
    say,
  );
}
