import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { RalphError } from '../contract/errors.js';
import type { BatchBudget } from './batch-budget.js';
import {
  type BatchTaskResult,
  batchTaskProblem,
  batchTaskRunId,
  type FleetBatchTask,
  isBatchTaskOutcome,
  landingWorkflowId,
} from './batch-input.js';
import { FLEET_APP_VERSION, FLEET_QUEUE, FLEET_WORKFLOW } from './constants.js';
import type { FleetRunInput } from './run-input.js';

/**
 * One task of a fleet batch as the database knows it: its run's status (the client's FleetRunStatus), and what
 * became of the task once settled.
 */
export interface FleetBatchTaskStatus<Run> {
  taskId: string;
  run: Run;
  /** Landed, needs review, failed or skipped, once its run settled (absent before). */
  result?: BatchTaskResult;
  /** While it is in the merge queue (its loop completed, its landing not settled): where it lands and how far. */
  landing?: FleetBatchLanding;
}

/** A task in the merge queue: the target it lands on, and the worker landing it now (absent: waiting its turn). */
export interface FleetBatchLanding {
  target: string;
  workerId?: string;
}

/** The task's landing while it is not settled (queued, or under way on a worker), else undefined. */
async function landingOf(client: DBOSClient, task: FleetBatchTask): Promise<FleetBatchLanding | undefined> {
  const found = await client.getWorkflow(landingWorkflowId(task.batchId, task.taskId));
  if (found === undefined) return undefined;
  if (found.status === 'ENQUEUED') return { target: task.target };
  if (found.status !== 'PENDING') return undefined;
  return found.executorId === ''
    ? { target: task.target }
    : { target: task.target, workerId: found.executorId };
}

/** A fleet batch: its tasks, in the order they were submitted. */
export interface FleetBatchStatus<Run> {
  batchId: string;
  tasks: FleetBatchTaskStatus<Run>[];
  /** The batch's own `--max-time`/`--max-cost` (absent: none). */
  budget?: BatchBudget;
}

/** A batch's submission: one run input per task, each carrying its task (in an order where `after` comes first). */
export type FleetBatchSubmission = (FleetRunInput & { batch: FleetBatchTask })[];

/**
 * Enqueues every task of a batch as a fleet run whose id is `<batch-id>.<task-id>`; resolves with those ids. Refused
 * (a RalphError), nothing enqueued, when a task's ids or repository URL are (a URL's credential is never stored).
 */
export async function enqueueBatch(client: DBOSClient, submission: FleetBatchSubmission): Promise<string[]> {
  for (const { batch } of submission) {
    const problem = batchTaskProblem(batch);
    if (problem !== null)
      throw new RalphError({ code: 'refused', message: `ralph: the batch task is refused: ${problem}` });
  }
  return enqueueBatchRows(client, submission);
}

/**
 * Writes the batch's rows as given, with no check: what anyone who can write to the fleet's database can do. Only
 * enqueueBatch (which checks first) and the tests of what a worker does with a crafted row call it.
 */
export async function enqueueBatchRows(
  client: DBOSClient,
  submission: FleetBatchSubmission,
): Promise<string[]> {
  const ids: string[] = [];
  for (const input of submission) {
    const handle = await client.enqueue(
      {
        queueName: FLEET_QUEUE,
        workflowName: FLEET_WORKFLOW,
        appVersion: FLEET_APP_VERSION,
        workflowID: batchTaskRunId(input.batch.batchId, input.batch.taskId),
      },
      input,
    );
    ids.push(handle.workflowID);
  }
  return ids;
}

/** The batch's tasks, found by their run ids' prefix; an empty list when there is no such batch. */
export async function readBatch<Run extends { outcome?: unknown }>(
  client: DBOSClient,
  batchId: string,
  statusOf: (runId: string) => Promise<Run>,
): Promise<FleetBatchStatus<Run>> {
  const runs = await client.listWorkflows({
    workflow_id_prefix: `${batchId}.`,
    workflowName: FLEET_WORKFLOW,
    loadOutput: false,
    loadInput: true,
  });
  runs.sort((a, b) => a.createdAt - b.createdAt);
  const budget = (runs[0]?.input?.[0] as FleetRunInput | undefined)?.batch?.budget;
  const tasks = await Promise.all(
    runs.map(async (found): Promise<FleetBatchTaskStatus<Run>> => {
      const run = await statusOf(found.workflowID);
      const taskId = found.workflowID.slice(batchId.length + 1);
      if (isBatchTaskOutcome(run.outcome)) return { taskId, run, result: run.outcome.batch };
      const task = (found.input?.[0] as FleetRunInput | undefined)?.batch;
      const landing = task === undefined ? undefined : await landingOf(client, task);
      return landing === undefined ? { taskId, run } : { taskId, run, landing };
    }),
  );
  return budget === undefined ? { batchId, tasks } : { batchId, tasks, budget };
}
