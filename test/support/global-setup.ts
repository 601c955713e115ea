import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every `ralph` the tests spawn keeps its V8 code cache in $XDG_CACHE_HOME/ralph-machine: a folder of the run's
 * own, removed afterwards, so the suite never writes into the tester's ~/.cache. Set before the test files load,
 * so their process.env (which spawned processes inherit) carries it.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const cache = await mkdtemp(join(tmpdir(), 'ralph-test-cache-'));
  process.env.XDG_CACHE_HOME = cache;
  return () => rm(cache, { recursive: true, force: true });
}
