import { draftPullLine, readyPullLine } from '../../contract/fleet-pull-messages.js';
import { batchBudgetSpent, summedCostUsd } from '../../fleet/batch-budget.js';
import type { FleetBatchStatus } from '../../fleet/batch-client.js';
import type { FleetRunStatus, RalphFleet } from '../../fleet/client.js';
import { FleetError } from '../../fleet/database.js';
import { stripControlToLine, terminalJson } from '../../render/terminal-text.js';
import { EXIT } from './exit-codes.js';

/** A batch as the client reads it. */
type Batch = FleetBatchStatus<FleetRunStatus>;

/**
 * The batch `id` names, when `id` is no run of the fleet but a batch's id (`ralph submit --batch` printed it); null
 * when it is a run. Neither: the FleetError of the missing run.
 */
export async function batchNamed(fleet: RalphFleet, id: string): Promise<Batch | null> {
  try {
    await fleet.status(id);
    return null;
  } catch (error) {
    if (!(error instanceof FleetError)) throw error;
    return fleet.batch(id).catch(() => {
      throw error;
    });
  }
}

/**
 * A batch's lines: one per task, its run's status until its loop ended, `landing on <target>` while it is in the
 * merge queue (by which worker, or waiting its turn), then what became of it (landed, needs-review
 * with the conflicting files and the branch kept on the remote, failed, skipped). Every value comes from the
 * database: printed without control characters.
 */
export function batchLines(batch: Batch, runLine: (run: FleetRunStatus) => string): string {
  const lines: string[] = [];
  for (const { taskId, run, result, landing } of batch.tasks) {
    if (landing !== undefined) {
      const where =
        landing.workerId === undefined ? 'waiting its turn in the merge queue' : `by ${landing.workerId}`;
      lines.push(stripControlToLine(`${taskId}: landing on ${landing.target} (${where})`));
      continue;
    }
    if (result === undefined) {
      lines.push(stripControlToLine(`${taskId}: ${runLine(run)}`));
      continue;
    }
    // With --land pr, a task that passed is its ready pull request, never "landed": the target did not move.
    const pull = result.pull;
    if (result.status === 'landed' && pull !== undefined && !pull.draft) {
      lines.push(stripControlToLine(readyPullLine(taskId, pull.url)));
      continue;
    }
    lines.push(stripControlToLine(`${taskId}: ${result.status}: ${result.detail}`));
    if (pull !== undefined) lines.push(`  ${stripControlToLine(draftPullLine(pull.url))}`);
    if (result.files.length > 0)
      lines.push(`  ${stripControlToLine(`conflicting files: ${result.files.join(', ')}`)}`);
    if (result.status === 'needs-review')
      lines.push(`  branch ralph/${batch.batchId}/${taskId} on the remote`);
  }
  return lines.join('\n');
}

/** `ralph status <batch-id>`: the batch's lines (or JSON); exit 0. */
export function printBatchStatus(
  batch: Batch,
  json: boolean,
  runLine: (run: FleetRunStatus) => string,
): number {
  process.stdout.write(`${json ? terminalJson(batch) : batchLines(batch, runLine)}\n`);
  return EXIT.complete;
}

/**
 * `ralph wait <batch-id>`: waits for every task's run to settle (each landing included), then prints the batch's
 * lines; exit 0 when every task landed, 4 when some did not because the batch's own budget ran out, else 1.
 */
export async function waitBatch(
  fleet: RalphFleet,
  batch: Batch,
  json: boolean,
  runLine: (run: FleetRunStatus) => string,
): Promise<number> {
  for (const { run } of batch.tasks) await fleet.wait(run.runId);
  const settled = await fleet.batch(batch.batchId);
  printBatchStatus(settled, json, runLine);
  if (settled.tasks.every((task) => task.result?.status === 'landed')) return EXIT.complete;
  const spent = budgetSpent(settled);
  if (spent === null) return EXIT.failed;
  process.stderr.write(`ralph: batch ${settled.batchId}: ${spent}\n`);
  return EXIT.budgetLimited;
}

/**
 * Why the settled batch's own budget stopped it, or null when it did not: its tasks' summed cost reached its
 * `--max-cost`, or a task that did not land settled once its `--max-time` had run out.
 */
function budgetSpent({ budget, tasks }: Batch): string | null {
  if (budget === undefined) return null;
  const costUsd = summedCostUsd(tasks.map((task) => task.run.usage));
  const cost = batchBudgetSpent({ deadline: null, maxCostUsd: budget.maxCostUsd }, { now: 0, costUsd });
  if (cost !== null) return cost;
  const unlanded = tasks.filter((task) => task.result?.status !== 'landed');
  // A fold, not Math.max(...): a batch may have more tasks than a call takes arguments.
  const lastSettled = unlanded.reduce(
    (last, task) => Math.max(last, task.run.updatedAt ?? task.run.createdAt),
    Number.NEGATIVE_INFINITY,
  );
  return batchBudgetSpent({ deadline: budget.deadline, maxCostUsd: null }, { now: lastSettled, costUsd });
}
