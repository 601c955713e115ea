import { afterEach } from 'vitest';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Registers a cleanup for after the test (a temp folder, a server, a process); they run last first. */
export function onCleanup(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}
