import { statSync } from 'node:fs';

/** True when `path` is a directory (through links); false when it is missing, unreadable or anything else. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
