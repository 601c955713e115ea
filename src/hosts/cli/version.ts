import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';

/** The package's version, from its package.json. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot("ralph's version"), 'package.json'), 'utf8'));
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
