import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

let version: string | undefined;

function readVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(packageRoot('a run recording'), 'package.json'), 'utf8'));
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** ralph-machine's version from its package.json; 'unknown' when the library is bundled without it. */
export function recordingPackageVersion(): string {
  version ??= readVersion();
  return version;
}
