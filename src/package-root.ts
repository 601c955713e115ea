import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'ralph-machine')
      return dir;
    if (dirname(dir) === dir) throw new Error(`no ralph-machine package.json above ${start}`);
  }
}

/**
 * The folder of ralph-machine's own package.json, found upward from this module, so that shipped files
 * (`examples/`, `package.json`) are found alike from `src/`, from `dist/` and from the bundled CLI in `dist/hosts/cli/`.
 */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
