import type { ChildRun, SubagentProvider } from '../contract/types.js';
import { maskUrlCredentials } from '../contract/url-credentials.js';
import { remoteHead } from '../workspace/git-remote.js';
import { type BatchBudget, type BatchSpend, batchBudgetSpent } from './batch-budget.js';
import {
  type BatchFolders,
  closeTaskWorktree,
  openTaskWorktree,
  saveTaskBranch,
  withClone,
} from './batch-clone.js';
import {
  type BatchTaskResult,
  batchTaskRunId,
  type FleetBatchTask,
  isBatchTaskOutcome,
} from './batch-input.js';
import type { LandingPull } from './batch-landing.js';
import {
  type DecidedPull,
  decidedPull,
  draftOnFleet,
  type FleetGitHub,
  isPullTask,
  loopOutcomeOf,
  pullRefusal,
  pullRowProblem,
  runFactsOf,
} from './batch-pulls.js';
import { afterProblem, type BatchRowOrder, batchRowProblem } from './batch-row.js';
import type { DurableSteps } from './durable-provider.js';
import {
  type FleetOutcome,
  type FleetProviderFactory,
  type FleetRunInput,
  guardRailsOf,
} from './run-input.js';
import { StateFolderError } from './state-folder.js';
import { runFleetRun } from './workflow.js';

/** What a batch task's workflow needs of its worker and of DBOS. */
export interface BatchTaskDeps
  extends BatchFolders,
    Pick<
      Parameters<typeof runFleetRun>[1],
      'traces' | 'onProgress' | 'onUsage' | 'record' | 'sandbox' | 'messages'
    > {
  workflowId: string;
  workerId: string;
  steps: DurableSteps;
  providerFor: FleetProviderFactory;
  allowVerify: boolean;
  /** Whether the worker takes batch tasks at all (`ralph worker --allow-batch`). */
  allowBatch: boolean;
  /** Each task of the batch as its row gives it (its id and `after`), read in a step of this one. */
  batchOrder(batchId: string): Promise<BatchRowOrder[]>;
  /** `DBOS.getResult` of another workflow (a task this one comes after), recorded in this one. */
  resultOf(workflowId: string): Promise<unknown>;
  /** The summed cost of the batch's task runs so far (what its `--max-cost` counts), read in a step of this one. */
  batchCostUsd(batchId: string): Promise<number>;
  /**
   * Cancels the batch's task runs that are not settled and not landing (a landing under way finishes), but this
   * one, as `ralph cancel <batch-id>` does; read in a step of this one.
   */
  cancelBatch(batchId: string, except: string): Promise<void>;
  /** Starts the task's landing on the merge queue (once: its id is the task's) and resolves with how it went. */
  land(
    input: FleetRunInput & { batch: NonNullable<FleetRunInput['batch']> },
    pull?: LandingPull,
  ): Promise<BatchTaskResult>;
  /** The worker's GitHub, with `--allow-github`: a `--land pr` task is refused without it. */
  github?: FleetGitHub;
  /** What the run's rounds said they cost (null: none said), read in a step of this one. */
  runCostUsd(runId: string): Promise<number | null>;
}

/** What a batch task's workflow returns: its run's outcome, and what became of the task. */
export type BatchTaskOutcome = FleetOutcome & { batch: BatchTaskResult };

const refused = (message: string): FleetOutcome => ({ ok: false, failure: { code: 'refused', message } });

/** The outcome of a task that did not get as far as its landing. */
const ended = (outcome: FleetOutcome, status: 'failed' | 'skipped', detail: string): BatchTaskOutcome => ({
  ...outcome,
  batch: { status, detail, files: [] },
});

/**
 * A task not run again because a person has its pull request: a ready one stands for the task as its landing would
 * (tasks after it start from the commit ralph pushed there), a closed one ends it skipped.
 */
function notRunAgain({ pull, state }: DecidedPull): BatchTaskOutcome {
  const detail =
    state === 'closed'
      ? `not run: its pull request ${pull.url} was closed`
      : `not run: its pull request ${pull.url} is ready for review`;
  const outcome: FleetOutcome = { ok: false, failure: { code: 'cancelled', message: detail } };
  return state === 'closed'
    ? ended(outcome, 'skipped', detail)
    : { ...outcome, batch: { status: 'landed', detail, files: [], pull } };
}

/**
 * Why this worker refuses a batch task (or its landing), or null when it takes it: a worker clones and pushes a
 * submitter's repository only with `--allow-batch`, and runs a submitted verify command only with `--allow-verify`.
 */
export function batchRefusal(
  worker: { workerId: string; allowBatch: boolean; allowVerify: boolean },
  task: Pick<FleetBatchTask, 'verify'>,
): string | null {
  if (!worker.allowBatch)
    return (
      `ralph fleet: worker ${worker.workerId} does not take batch tasks (start it with --allow-batch to let ` +
      'submitters have it clone and push their repositories). Nothing was started'
    );
  if (task.verify !== null && !worker.allowVerify)
    return (
      `ralph fleet: worker ${worker.workerId} does not run a submitted run's --verify command (start it with ` +
      '--allow-verify to let submitters choose one). Nothing was started'
    );
  return null;
}

/** The refusal of a batch task whose row (or its landing's) the worker will not use, saying why. */
export const rowRefusal = (workerId: string, workflowId: string, problem: string): string =>
  `ralph fleet: worker ${workerId} refuses batch task row ${workflowId}: ${problem}. Nothing was started`;

/**
 * Why the worker does not run the task its row gives (its ids, URL, refs, or its `after`, which the worker reads
 * from the database in a recorded step), or null: a row is checked where it is used, as anyone who can write to
 * the database could have written it.
 */
async function taskRowRefusal(task: FleetBatchTask, deps: BatchTaskDeps): Promise<string | null> {
  const problem =
    (await batchRowProblem(task, deps.workflowId, batchTaskRunId)) ??
    pullRowProblem(task) ??
    (await deps.steps.runStep(
      async () => afterProblem(task, await deps.batchOrder(task.batchId)),
      'batch-after',
    ));
  return problem === null ? null : rowRefusal(deps.workerId, deps.workflowId, problem);
}

/**
 * Why a finished run of a task does not go to the merge queue, or null when it does (it completed, even when the
 * batch's budget ran out as it ended: its work is done, and a landing spends no agent's time or money).
 */
function notLanding(outcome: FleetOutcome, batchSpent: string | null): string | null {
  const also = batchSpent === null ? '' : ` (${batchSpent})`;
  if (!outcome.ok) return `${outcome.failure.code}: ${outcome.failure.message}${also}`;
  const { status } = outcome.envelope.result;
  return status === 'complete' ? null : `its loop ended ${status}${also}`;
}

/**
 * The task's run input with its wall-clock budget ending no later than the batch's: a run still going when the
 * batch's `--max-time` runs out ends then, budget-limited, as a run does at its own `--max-time`.
 */
function withinBatchTime<T extends FleetRunInput>(input: T, atStart: BatchSpend | undefined): T {
  const deadline = input.batch?.budget?.deadline ?? null;
  if (deadline === null || atStart === undefined) return input;
  const left = deadline - atStart.now;
  const own = guardRailsOf(input).maxWallTimeMs;
  const maxWallTimeMs = typeof own === 'number' && own < left ? own : left;
  return { ...input, guardRails: { ...guardRailsOf(input), maxWallTimeMs } };
}

/**
 * Once the task's loop ended, whether the batch's budget ran out (its cost counted now, as the local batch sums a
 * loop's cost when it ends): then the batch's other runs not settled and not landing are cancelled. Recorded, so a
 * takeover decides the same.
 */
async function spendAtEnd(
  task: FleetBatchTask,
  budget: BatchBudget,
  deps: BatchTaskDeps,
): Promise<string | null> {
  return deps.steps.runStep(async () => {
    const spent = batchBudgetSpent(budget, {
      now: Date.now(),
      costUsd: await deps.batchCostUsd(task.batchId),
    });
    if (spent !== null) await deps.cancelBatch(task.batchId, deps.workflowId);
    return spent;
  }, 'batch-spent');
}

/**
 * The task's provider: each round's agent as the worker's factory makes it, and once its report is in (or it
 * failed), what it left committed and the task's branch pushed, inside the round's step: a round that is recorded
 * has its work on the remote, where a worker taking the task over starts from.
 */
function pushingProvider(
  real: SubagentProvider,
  save: (round: number) => Promise<unknown>,
): SubagentProvider {
  return {
    name: real.name,
    capabilities: real.capabilities,
    async start(request, options): Promise<ChildRun> {
      const child = await real.start(request, options);
      const report = child.report.then(
        async (output) => {
          await save(request.round);
          return output;
        },
        async (error: unknown) => {
          await save(request.round).catch(() => undefined);
          throw error;
        },
      );
      return { ...child, report };
    },
  };
}

/**
 * Runs a batch task inside its fleet run's workflow: waits for the tasks it comes after to land (skipped when one
 * did not), opens a worktree of the worker's clone on the task's branch, runs the Ralph loop there as any fleet
 * run, pushing the branch after each round, commits what is left with the task's trailer, and lands the branch
 * through the merge queue. Refused, starting nothing, on a worker without `--allow-batch`, or with a merge verify
 * command on one without `--allow-verify`.
 */
export async function runBatchTask(
  input: FleetRunInput & { batch: NonNullable<FleetRunInput['batch']> },
  deps: BatchTaskDeps,
): Promise<BatchTaskOutcome> {
  const task = input.batch;
  const refusal = batchRefusal(deps, task) ?? (await taskRowRefusal(task, deps)) ?? pullRefusal(deps, task);
  if (refusal !== null) return ended(refused(refusal), 'failed', refusal);
  // A task whose pull request a person has (ready, or closed) is not run again: recorded, so a takeover decides alike.
  const github = deps.github;
  if (github !== undefined && isPullTask(task)) {
    const objectiveText = typeof input.objective === 'string' ? input.objective : '';
    const decided = await deps.steps.runStep(
      () => decidedPull(github, task, objectiveText),
      'batch-pull-decided',
    );
    if (decided !== null) return notRunAgain(decided);
  }
  // With --land pr, the first task it comes after that has a pull request: it starts from that one's pushed work.
  let after: { branch: string; head: string } | null = null;
  for (const before of task.after) {
    // A task cancelled or in error has no outcome to give (DBOS throws): it did not land either.
    const outcome = await deps.resultOf(batchTaskRunId(task.batchId, before)).catch(() => undefined);
    if (!isBatchTaskOutcome(outcome) || outcome.batch.status !== 'landed') {
      const failure = {
        code: 'cancelled' as const,
        message: `${before}, which it comes after, did not land`,
      };
      return ended({ ok: false, failure }, 'skipped', failure.message);
    }
    const pull = outcome.batch.pull;
    if (after === null && pull?.head != null) after = { branch: pull.branch, head: pull.head };
  }
  // The batch's own budget, asked once it may start (recorded: a takeover decides the same).
  const budget = task.budget;
  const atStart =
    budget === undefined
      ? undefined
      : await deps.steps.runStep(
          async () => ({ now: Date.now(), costUsd: await deps.batchCostUsd(task.batchId) }),
          'batch-budget',
        );
  const spentAtStart =
    budget === undefined || atStart === undefined ? null : batchBudgetSpent(budget, atStart);
  if (spentAtStart !== null)
    return ended(
      { ok: false, failure: { code: 'cancelled', message: spentAtStart } },
      'skipped',
      spentAtStart,
    );
  // After the tasks it waited for: the target as they left it, read once and recorded.
  const base =
    task.after.length === 0
      ? task.base
      : isPullTask(task) && after !== null
        ? after.head
        : await deps.steps.runStep(
            () =>
              withClone(
                deps,
                task.repo,
                async (clone) => (await remoteHead(clone, task.target)) ?? task.base,
              ),
            'batch-base',
          );
  let worktree: string;
  try {
    worktree = await openTaskWorktree(deps, task, base);
  } catch (error) {
    const failure = {
      code: 'workflow-failed' as const,
      message:
        error instanceof StateFolderError
          ? error.message
          : `ralph fleet: could not clone ${maskUrlCredentials(task.repo)}: ${String(error)}`,
    };
    return ended({ ok: false, failure }, 'failed', failure.message);
  }
  // A run's objective is checked to be text before it starts; a stored input that is not still names the task.
  const objective = typeof input.objective === 'string' ? input.objective : '';
  const commit = { objective, runId: deps.workflowId };
  const outcome = await runFleetRun(
    { ...withinBatchTime(input, atStart), cwd: worktree },
    {
      workflowId: deps.workflowId,
      steps: deps.steps,
      allowVerify: deps.allowVerify,
      workerId: deps.workerId,
      ...(deps.sandbox === undefined ? {} : { sandbox: deps.sandbox }),
      ...(deps.traces === undefined ? {} : { traces: deps.traces }),
      ...(deps.onProgress === undefined ? {} : { onProgress: deps.onProgress }),
      ...(deps.onUsage === undefined ? {} : { onUsage: deps.onUsage }),
      ...(deps.record === undefined ? {} : { record: deps.record }),
      ...(deps.messages === undefined ? {} : { messages: deps.messages }),
      // The rounds push the task's branch; an evaluator changes nothing in the worktree, so it has nothing to push.
      providerFor: (agent, role) =>
        role === 'evaluator'
          ? deps.providerFor(agent, role)
          : pushingProvider(deps.providerFor(agent), (round) =>
              saveTaskBranch(deps, task, { ...commit, round }),
            ),
    },
  );
  const spentAtEnd = budget === undefined ? null : await spendAtEnd(task, budget, deps);
  const why = notLanding(outcome, spentAtEnd);
  const facts =
    github === undefined || !isPullTask(task)
      ? undefined
      : runFactsOf(outcome, await deps.steps.runStep(() => deps.runCostUsd(deps.workflowId), 'batch-cost'));
  const stackedOn = task.stack === true ? after : null;
  if (why !== null) {
    await closeTaskWorktree(deps, task).catch(() => undefined);
    const failed = ended(outcome, 'failed', why);
    if (github === undefined || facts === undefined || !isPullTask(task)) return failed;
    // A loop that did not complete: its branch as a draft labelled needs-review (or only its issue told), recorded.
    const drafted = await deps.steps.runStep(
      () =>
        draftOnFleet(deps, github, task, failed.batch, {
          objective,
          outcome: loopOutcomeOf(outcome, spentAtEnd !== null),
          why,
          base: stackedOn?.branch ?? task.target,
          facts,
          start: base,
        }),
      'batch-draft',
    );
    return { ...failed, batch: drafted };
  }
  await deps.steps.runStep(() => saveTaskBranch(deps, task, commit, { final: true }), 'batch-commit');
  await closeTaskWorktree(deps, task).catch(() => undefined);
  const pull = facts === undefined ? undefined : { objective, facts, stackedOn };
  return { ...outcome, batch: await deps.land(input, pull) };
}
