import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A folder for an agent CLI's own state during one round (its runtime files, a per-round home or config), inside
 * the round's folder beside the report file, so it goes when the round folder goes and nothing lands in the user's
 * configuration. Emptied first: round folders are reused, and no round may see what an earlier one left.
 */
export function freshAgentHome(reportFile: string, name: string): string {
  const dir = join(dirname(reportFile), name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** The JSON object in `file` (a user's settings), or an empty one when there is none or it is not a plain object. */
export function readJsonObject(file: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
