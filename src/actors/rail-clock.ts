import { MAX_DURATION_MS } from '../contract/duration.js';
import type { GuardRails } from '../contract/types.js';

/** What the clock hands back for a timer it did not schedule. */
const UNSCHEDULED = Symbol('unscheduled');

/**
 * XState's clock for the engine's runs. A guard rail that is off is timed MAX_DURATION_MS (ralph.setup.ts, `delays`):
 * its guard never lets it take a transition, so this clock does not schedule it. No Node timer a round for the round
 * timeout that is off, none a run for the wall clock that is off: each costs a `setTimeout`, its `clearTimeout` and a
 * `Timeout` that a suspended run holds (BENCHMARKS.md, issue 35).
 */
const railClock = {
  setTimeout: (fn: (...args: unknown[]) => void, ms: number): unknown =>
    ms >= MAX_DURATION_MS ? UNSCHEDULED : setTimeout(fn, ms),
  clearTimeout: (id: unknown): void => {
    if (id !== UNSCHEDULED) clearTimeout(id as ReturnType<typeof setTimeout>);
  },
};

/**
 * The clock of a run with these guard rails: `railClock`, unless one of its rails is set to MAX_DURATION_MS itself
 * (24.8 days, the longest a rail takes), which must then be scheduled like any other; undefined: XState's own.
 */
export function railClockOf(rails: GuardRails): typeof railClock | undefined {
  const set = [rails.roundTimeoutMs, rails.maxWallTimeMs, rails.waitForAnswersMs];
  return set.some((ms) => ms !== null && ms !== undefined && ms >= MAX_DURATION_MS) ? undefined : railClock;
}
