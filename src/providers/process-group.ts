import { readdirSync, readFileSync } from 'node:fs';

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

/** The state and process group of a Linux process, from /proc (null when it is gone). */
function procState(pid: string): { state: string; pgrp: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state ppid pgrp ...": the name may hold spaces, so count from its closing parenthesis.
    const [state = '', , pgrp = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, pgrp: Number(pgrp) };
  } catch {
    return null;
  }
}

/**
 * True while a process of the group led by `pgid` is still alive. A zombie (dead, waiting to be reaped) does not
 * count: an orphaned grandchild is reaped by init, which in a container may never happen.
 */
export function groupIsAlive(pgid: number): boolean {
  if (!groupExists(pgid)) return false;
  if (process.platform !== 'linux') return true;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const proc = procState(entry);
    return proc !== null && proc.pgrp === pgid && proc.state !== 'Z';
  });
}

/** Waits until no live process is left in the group led by `pgid`, or until `timeoutMs` has passed. */
export async function groupDied(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupIsAlive(pgid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}
