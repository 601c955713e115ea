import type { RalphProgressEvent } from './types.js';

/** Every progress event type a run emits, the reference's three first. */
export const PROGRESS_EVENT_TYPES = [
  'round-started',
  'child-started',
  'report-accepted',
  'round-timed-out',
  'time-limit-reached',
  'verify-started',
  'verify-finished',
  'workspace-unchanged',
  'limit-wait-started',
] as const satisfies readonly RalphProgressEvent['type'][];
