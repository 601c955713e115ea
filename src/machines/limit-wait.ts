import { MAX_DURATION_MS } from '../contract/duration.js';
import type { RoundLimit } from './ralph.types.js';

// How long a run waits out a usage or rate limit (`--wait-on-limits`): policy the chart only schedules.

export const LIMIT_MARGIN_MS = 1_000;
/** The first wait for a limit with no reset time; each further one in a row doubles, up to LIMIT_BACKOFF_MAX_MS. */
export const LIMIT_BACKOFF_MS = 60_000;
/** The longest wait for a limit with no reset time: 30 minutes. */
export const LIMIT_BACKOFF_MAX_MS = 1_800_000;

/** How long to wait for a limit: its reset plus the margin, or the backoff of the `waits`-th wait in a row. */
export function limitWaitMs(limit: RoundLimit, waits: number): number {
  const wait =
    limit.retryInMs !== null
      ? limit.retryInMs + LIMIT_MARGIN_MS
      : Math.min(LIMIT_BACKOFF_MS * 2 ** Math.max(0, waits - 1), LIMIT_BACKOFF_MAX_MS);
  return Math.min(wait, MAX_DURATION_MS);
}
