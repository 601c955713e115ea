import { lstatSync, realpathSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';

/** A path a batch row would have the worker make, prune or remove outside its state folder: refused. */
export class StateFolderError extends Error {
  override name = 'StateFolderError';
}

/** Whether something (a symlink too, even a dangling one) is at `path`. */
function isThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `path` is `top` or below it. */
const isUnder = (path: string, top: string): boolean => path === top || path.startsWith(`${top}${sep}`);

/**
 * The path of `parts` under the worker's state folder, refused when it would not be below it: a part
 * climbing out (`..`), an absolute one, or a symlink on the way leading out of it (a StateFolderError). The parts come from batch rows
 * (their ids), which the worker checks first; this is the last check before a path is made, pruned or removed.
 */
export function statePath(stateDir: string, ...parts: string[]): string {
  const top = resolve(stateDir);
  const path = resolve(top, ...parts);
  const outside = () =>
    new StateFolderError(
      `ralph fleet: ${JSON.stringify(path)} is not under the worker's state folder ${top}; refused`,
    );
  if (path === top || !isUnder(path, top)) throw outside();
  // The deepest part already there, resolved through its symlinks, must still be in the state folder (itself
  // resolved: the state folder may be a symlink of the operator's).
  let there = path;
  while (!isThere(there)) there = dirname(there);
  if (!isUnder(there, top) || there === top) return path;
  let real: string;
  try {
    real = realpathSync(there);
  } catch {
    throw outside(); // a dangling symlink on the way
  }
  if (!isUnder(real, realpathSync(top))) throw outside();
  return path;
}

/**
 * Makes `folder` (under the state folder's `kind` folder, `repos`, `worktrees` or `merges`) and the folders above it
 * that are missing, readable by the worker's user alone (0700): they hold the clones (their config names the
 * repository's URL) and the agents' work. The `kind` folder is made private too when an older worker left it open.
 */
export async function privateFolder(stateDir: string, kind: string, folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(statePath(stateDir, kind), 0o700);
  if (folder !== statePath(stateDir, kind)) await chmod(folder, 0o700);
}
