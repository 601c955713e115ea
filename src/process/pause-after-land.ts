import { existsSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Test-only (docs/testing.md): with `RALPH_TEST_PAUSE_AFTER_LAND` naming a file, each landing (`ralph batch`'s, and a
 * fleet worker's), once the target has moved and before the landing is recorded, writes the task's id to that file
 * and waits until the file is gone. It holds a batch at the one moment a crash leaves a landing unrecorded, for the
 * crash test to kill it there. Unset (always, outside the tests), it does nothing.
 */
export async function pauseAfterLandForTests(taskId: string): Promise<void> {
  const file = process.env.RALPH_TEST_PAUSE_AFTER_LAND;
  if (file === undefined || file === '') return;
  writeFileSync(file, taskId);
  while (existsSync(file)) await sleep(50);
}
