import type { WorkspaceSnapshot } from './workspace-snapshot.js';

/**
 * The paths that differ between two snapshots of one workspace, sorted, each with what happened to it:
 * `src/a.ts (changed)`, `b.txt (added)`, `c.txt (removed)`. Empty when nothing changed.
 */
export function changedFiles(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const changes: [path: string, what: string][] = [];
  for (const [path, digest] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push([path, 'removed']);
    else if (now !== digest) changes.push([path, 'changed']);
  }
  for (const path of after.keys()) if (!before.has(path)) changes.push([path, 'added']);
  // By path alone: worded, `a !x (added)` would sort before `a (changed)`.
  changes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return changes.map(([path, what]) => `${path} (${what})`);
}
