import { readFileSync } from 'node:fs';
import type { PullOutcome } from '../../contract/pull-messages.js';
import {
  type LandingDeps,
  landAsPull,
  type PullLanded,
  type PullTask,
  pullBase,
} from '../../github/pull-landing.js';
import { type BatchRecording, readBatchRecording } from '../../inspect/batch-recording.js';
import type { RunModel } from '../../inspect/run-model.js';
import { buildRunModel } from '../../inspect/run-model-builder.js';
import type { TaskStatus } from '../../machines/batch-types.js';
import { git } from '../../workspace/git-command.js';
import { taskBranch } from '../../workspace/git-session.js';
import type { BatchOptions } from './batch-options.js';
import { batchRunPath } from './report-path.js';

/** A push of a local repository's branches to `remote` (a remote's name or URL) with the git CLI. */
export function gitPusher(cwd: string, remote: string): (branch: string) => Promise<void> {
  return async (branch) => {
    // A plain push, never forced: a person's commits pushed on the branch since are not overwritten.
    await git(cwd, ['push', '--quiet', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
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

/** The issue a task came from: `gh-<number>` (tasks from `--from-github`), else none. */
export const issueOfTask = (taskId: string): number | null => {
  const match = /^gh-(\d+)$/.exec(taskId);
  return match === null ? null : Number(match[1]);
};

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

/**
 * How a `--land pr` batch reaches GitHub: the client, the repository and the push of a branch, made once the options
 * are read and before anything starts (a token without the rights it needs is refused then). The CLI's entry point
 * passes the Octokit one; tests pass an in-memory one.
 */
export type ConnectGitHub = (cwd: string, options: BatchOptions) => Promise<LandingDeps>;

/** What a `--land pr` batch's pull requests need besides GitHub: its recording, target, stacking and report link. */
export interface BatchPullsSetup {
  recordingPath: string;
  /** The branch each pull request goes into (unless stacked). */
  target: string;
  stack: boolean;
  /** The link to the batch's report page, when it is published somewhere a reviewer can open. */
  reportUrl: string | null;
  /** Whether the task's branch holds commits of its own (a failed task with none gets only an issue comment). */
  hasChanges(branch: string): Promise<boolean>;
}

/**
 * Lands each settled task of a batch as its own pull request, from its recording: ready for a task that passed, a
 * labelled draft (or, with no branch, an issue comment) for any other; with `stack`, a task whose `after` names a
 * task with a pull request goes into that task's branch. Says each as it goes.
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
    const withChanges = await setup.hasChanges(branch);
    const verify = task.verify ?? null;
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
      issue: issueOfTask(task.id),
      branch: withChanges ? branch : null,
      base: pullBase(task.after, pulled, setup.target, setup.stack),
      title: task.objective.split('\n')[0]?.slice(0, 200) || task.id,
    };
    const result = await landAsPull(deps, pullTask);
    if (result.pull !== null) pulled.set(task.id, branch);
    landed.set(task.id, result);
    say(
      task.id,
      result.pull === null
        ? 'no branch with changes: commented on its issue'
        : `${result.action} ${result.pull.htmlUrl}`,
    );
  }
  return landed;
}
