/**
 * Sends `signal` to every process in the group led by `pid`. False when the group is gone; true when it exists,
 * even if some member could not be signalled (EPERM), so callers never throw from an exit or abort handler.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** True while some process (a zombie included) still belongs to the group led by `pid`. */
export function groupExists(pid: number): boolean {
  return signalGroup(pid, 0);
}
