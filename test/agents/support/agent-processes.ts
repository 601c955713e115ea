import { readdirSync, readFileSync } from 'node:fs';
import { isRunning } from '../../support/processes.js';

/** A process environment's entries, or none when it cannot be read (gone, or another user's). */
function environOf(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** The pids of every live process (but `except` and this one) whose environment holds `entry` (`NAME=value`). */
export function processesWithEnv(entry: string, except: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== except && Number(name) !== process.pid)
    .filter((name) => environOf(name).includes(entry))
    .map(Number)
    .filter(isRunning);
}
