import { RalphError } from '../contract/errors.js';
import { ralphDepthLimitReached } from '../contract/messages.js';

/** The environment variable that carries how deep in nested Ralph loops a process runs (absent: 0). */
export const RALPH_DEPTH_ENV = 'RALPH_DEPTH';

/** Default for how many Ralph loops may nest: a child of a child of a child may not start a fourth. */
export const DEFAULT_DEPTH_LIMIT = 3;

/** How deep this process runs in nested Ralph loops: `RALPH_DEPTH` as a whole number, 0 when absent or garbled. */
export function currentDepth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[RALPH_DEPTH_ENV]?.trim() ?? '';
  if (!/^\d+$/.test(raw)) return 0;
  const depth = Number(raw);
  return Number.isSafeInteger(depth) ? depth : 0;
}

/** Throws a `refused` RalphError when this process runs at or past `limit` nested Ralph loops. */
export function assertDepthAllowed(limit: number, env: NodeJS.ProcessEnv = process.env): void {
  const depth = currentDepth(env);
  if (depth >= limit) {
    throw new RalphError({ code: 'refused', message: ralphDepthLimitReached(depth, limit) });
  }
}
