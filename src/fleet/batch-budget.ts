import { type RalphUsage, sumUsdOf } from '../contract/usage.js';

/**
 * A fleet batch's own `--max-time` and `--max-cost` (`ralph submit --batch`), held for the batch as a whole besides
 * each task's run holding them for itself: the moment its wall clock runs out (its submit time plus `--max-time`),
 * and the most its tasks' summed cost may reach.
 */
export interface BatchBudget {
  /** When the batch's time runs out (ms since the epoch), or null for no `--max-time`. */
  deadline: number | null;
  /** The batch's `--max-cost` in USD, or null for none. */
  maxCostUsd: number | null;
}

/** What the batch has used when a task asks: the time, and its tasks' summed cost so far. */
export interface BatchSpend {
  now: number;
  costUsd: number;
}

/**
 * Why the batch's budget ran out, in the words of the local batch (`the batch's --max-time ran out`, `the batch's
 * --max-cost was reached ($0.75)`), or null while it holds.
 */
export function batchBudgetSpent(budget: BatchBudget, spend: BatchSpend): string | null {
  if (budget.deadline !== null && spend.now >= budget.deadline) return "the batch's --max-time ran out";
  if (budget.maxCostUsd !== null && spend.costUsd >= budget.maxCostUsd)
    return `the batch's --max-cost was reached ($${spend.costUsd.toFixed(2)})`;
  return null;
}

/** The summed cost of the batch's task runs, from what each said its rounds used (no cost said counts nothing). */
export const summedCostUsd = (usages: readonly (RalphUsage | null | undefined)[]): number =>
  sumUsdOf(usages.map((usage) => usage?.costUsd ?? 0));
