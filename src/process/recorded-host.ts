import { existsSync } from 'node:fs';
import { procStat, thisHost } from './process-identity.js';

/** The recorded host process, if it still runs on this machine: two hosts of one run must never work at once. */
export function recordedHostRuns(host: unknown): number | undefined {
  const me = thisHost();
  const recorded = host as {
    pid?: unknown;
    startTime?: unknown;
    bootId?: unknown;
    pidNamespace?: unknown;
  } | null;
  if (me === null || recorded === null || typeof recorded !== 'object') return undefined;
  if (recorded.bootId !== me.bootId || recorded.pidNamespace !== me.pidNamespace) return undefined;
  if (typeof recorded.pid !== 'number' || recorded.pid === me.pid) return undefined;
  const stat = procStat(recorded.pid);
  return stat !== null && stat.state !== 'Z' && stat.startTime === recorded.startTime
    ? recorded.pid
    : undefined;
}

/** The first free `FILE.N`, where the recording being resumed (or a batch task's run done again) is kept. */
export function keptName(path: string): string {
  for (let n = 1; ; n += 1) if (!existsSync(`${path}.${n}`)) return `${path}.${n}`;
}
