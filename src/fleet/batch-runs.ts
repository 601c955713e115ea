import { summedCostUsd } from './batch-budget.js';
import { landingWorkflowId } from './batch-input.js';
import type { BatchRowOrder } from './batch-row.js';
import { FLEET_WORKFLOW } from './constants.js';
import { recordedUsage } from './durable-provider.js';
import type { FleetRunInput } from './run-input.js';
import type { DbosModule } from './sdk.js';

/** What a worker asks DBOS about a batch's runs (its static `DBOS`, inside a step of a task's workflow). */
type Dbos = Pick<
  DbosModule['DBOS'],
  'listWorkflows' | 'listWorkflowSteps' | 'cancelWorkflow' | 'getWorkflowStatus'
>;

/** The batch's task runs, found by their ids' prefix `<batch-id>.` (its landings have another workflow name). */
const batchRuns = (dbos: Dbos, batchId: string, loadInput = false) =>
  dbos.listWorkflows({
    workflow_id_prefix: `${batchId}.`,
    workflowName: FLEET_WORKFLOW,
    loadInput,
    loadOutput: false,
  });

/** Each task of the batch as its row gives it: its id (its run id's) and the `after` its input names. */
export async function batchRowOrder(dbos: Dbos, batchId: string): Promise<BatchRowOrder[]> {
  return (await batchRuns(dbos, batchId, true)).map((run) => ({
    taskId: run.workflowID.slice(batchId.length + 1),
    after: (run.input?.[0] as FleetRunInput | undefined)?.batch?.after,
  }));
}

/** The summed cost the batch's task runs' rounds said they used, over every worker that ran them. */
export async function batchCostUsd(dbos: Dbos, batchId: string): Promise<number> {
  const runs = await batchRuns(dbos, batchId);
  const steps = await Promise.all(runs.map((run) => dbos.listWorkflowSteps(run.workflowID)));
  return summedCostUsd(steps.map((list) => recordedUsage(list ?? [])));
}

/** The cost one run's rounds said they used (null: none said), over every worker that ran it. */
export async function runCostUsd(dbos: Dbos, runId: string): Promise<number | null> {
  return recordedUsage((await dbos.listWorkflowSteps(runId)) ?? [])?.costUsd ?? null;
}

/**
 * Cancels the batch's task runs not settled yet but `except` (the run asking), as `ralph cancel <batch-id>`: all
 * but those whose landing started, which finishes (a landing is one push: it lands whole or not at all).
 */
export async function cancelBatchRuns(dbos: Dbos, batchId: string, except: string): Promise<void> {
  for (const run of await batchRuns(dbos, batchId)) {
    if (run.workflowID === except || (run.status !== 'PENDING' && run.status !== 'ENQUEUED')) continue;
    const taskId = run.workflowID.slice(batchId.length + 1);
    if ((await dbos.getWorkflowStatus(landingWorkflowId(batchId, taskId))) !== null) continue;
    await dbos.cancelWorkflow(run.workflowID);
  }
}
