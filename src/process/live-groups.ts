import { signalGroup } from './group-signals.js';

/** The process groups this process started and has not yet seen gone. */
const live = new Set<number>();
let exitHookInstalled = false;

/**
 * Counts `pgid` among the live groups until `forgetGroup`. The first one installs the exit hook: a host that dies of
 * an uncaught exception or calls process.exit() runs no cleanup of its own, and its children (each in a group of its
 * own, so no signal to the host reaches them) would outlive it. The hook is synchronous, as 'exit' handlers must be,
 * and SIGKILLs: nothing will be there to wait for a SIGTERM. Only SIGKILL of the host itself (or a signal it does
 * not handle) gets past it; the next start's sweep of round folders deals with those.
 */
export function rememberGroup(pgid: number): void {
  live.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killLiveGroups);
}

/** Stops counting `pgid` once it is gone: from then on its number may name someone else's group. */
export function forgetGroup(pgid: number): void {
  live.delete(pgid);
}

/** SIGKILLs every live group this process started (the exit hook, and a CLI's forced exit). */
export function killLiveGroups(): void {
  for (const pgid of live) signalGroup(pgid, 'SIGKILL');
}
