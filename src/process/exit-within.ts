import type { GroupExit, GroupProcess } from './start-in-group.js';

/**
 * Waits until a group process has exited and its group is gone, stopping it (SIGTERM, SIGKILL after its grace) once
 * `timeoutMs` has passed; `timedOut` says whether the timeout stopped it.
 */
export async function exitWithin(
  child: GroupProcess,
  timeoutMs: number,
): Promise<GroupExit & { timedOut: boolean }> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.stop();
  }, timeoutMs);
  try {
    const exit = await child.exited;
    return { ...exit, timedOut };
  } finally {
    clearTimeout(timer);
  }
}
