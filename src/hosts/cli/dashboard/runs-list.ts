import { runSandboxText } from '../../../contract/fleet-sandbox-messages.js';
import { usageText } from '../../../contract/usage.js';
import type { FleetRunState } from '../../../fleet/client.js';
import { type DashboardQueries, RUN_STATES } from '../../../fleet/dashboard-queries.js';

/** How long the counts of runs by status are reused (ms): the one query of the page that reads every run's row. */
const COUNTS_TTL_MS = 5_000;

/**
 * The runs list the dashboard page polls (`/api/runs?status=&cursor=`): a page of the runs of one status (or all),
 * as the page shows them, the next page's cursor, and the counts by status.
 */
export function runsListOf(queries: DashboardQueries, pageSize: number) {
  let counted: { at: number; counts: Promise<Record<string, number>> } | undefined;
  /** The counts by status, read at most once every COUNTS_TTL_MS however many pages poll. */
  const counts = () => {
    if (counted === undefined || Date.now() - counted.at > COUNTS_TTL_MS) {
      const read = queries.counts();
      counted = { at: Date.now(), counts: read };
      // A failed read is not kept: the next poll asks again.
      read.catch(() => {
        if (counted?.counts === read) counted = undefined;
      });
    }
    return counted.counts;
  };

  return async function runsPage(url: URL) {
    const status = url.searchParams.get('status') ?? '';
    const cursor = url.searchParams.get('cursor') ?? '';
    const state = (RUN_STATES as readonly string[]).includes(status) ? (status as FleetRunState) : undefined;
    if (!(await queries.ready())) return { runs: [], next: null, counts: {} };
    const [found, byStatus] = await Promise.all([
      queries.runs({
        ...(state === undefined ? {} : { state }),
        ...(cursor === '' ? {} : { cursor }),
        limit: pageSize,
      }),
      counts(),
    ]);
    const runs = found.runs.map((run) => ({
      ...run,
      cost: run.usage === null ? '' : usageText(run.usage),
      // As `ralph status` says it: sandboxed, in how many rounds, or asked for.
      sandboxed: runSandboxText(run.sandbox, run.roundsDone),
    }));
    return { runs, next: found.next, counts: byStatus };
  };
}
