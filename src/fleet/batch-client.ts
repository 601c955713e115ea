import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { BatchBudget } from './batch-budget.js';
import {
  type BatchTaskResult,
  batchTaskRunId,
  type FleetBatchTask,
  isBatchTaskOutcome,
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

/** Enqueues every task of a batch as a fleet run whose id is `<batch-id>.<task-id>`; resolves with those ids. */
export async function enqueueBatch(client: DBOSClient, submission: FleetBatchSubmission): Promise<string[]> {
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
      return isBatchTaskOutcome(run.outcome) ? { taskId, run, result: run.outcome.batch } : { taskId, run };
    }),
  );
  return budget === undefined ? { batchId, tasks } : { batchId, tasks, budget };
}
