import { formatDuration } from './duration.js';

/** What `ralph prune` deletes whole: a fleet run, or a batch (its tasks' runs and their landings). */
export type PrunedKind = 'run' | 'batch';

/** A count of runs or batches, in words (`1 run`, `2 batches`). */
function counted(count: number, kind: PrunedKind): string {
  const noun = kind === 'run' ? 'run' : 'batch';
  return `${count} ${count === 1 ? noun : noun === 'run' ? 'runs' : 'batches'}`;
}

/** The line `ralph prune` prints for each run or batch it deleted (or, with --dry-run, would delete). */
export function prunedLine(kind: PrunedKind, id: string, workflows: number, dryRun: boolean): string {
  const verb = dryRun ? 'would prune' : 'pruned';
  return kind === 'run'
    ? `${verb} run ${id}`
    : `${verb} batch ${id} (${workflows === 1 ? '1 workflow' : `${workflows} workflows`}: its tasks' runs and landings)`;
}

/** The last line of `ralph prune`: how many runs and batches it deleted, or would delete with --dry-run. */
export function pruneSummary(runs: number, batches: number, olderThanMs: number, dryRun: boolean): string {
  const age = `ended more than ${formatDuration(olderThanMs)} ago`;
  if (runs === 0 && batches === 0) return `ralph prune: no run or batch ${age}; nothing pruned`;
  const what =
    batches === 0
      ? counted(runs, 'run')
      : runs === 0
        ? counted(batches, 'batch')
        : `${counted(runs, 'run')} and ${counted(batches, 'batch')}`;
  return dryRun
    ? `ralph prune: would prune ${what} that ${age} (--dry-run: nothing was deleted)`
    : `ralph prune: pruned ${what} that ${age}; runs that have not ended are kept`;
}
