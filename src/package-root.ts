import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The first folder from `start` upward that holds ralph-machine's package.json, or undefined. */
function findPackageRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'ralph-machine')
      return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

let found: string | undefined;

/**
 * The folder of ralph-machine's own package.json, found upward from this module, so that shipped files
 * (`examples/`, `package.json`) are found alike from `src/`, from `dist/` and from the bundled CLI in `dist/hosts/cli/`.
 * It is looked for only when `what` (the example agent, the demo, the version) needs it, never at import: an
 * application that bundles the library into a file of its own has no such folder, and must still be able to import it.
 */
export function packageRoot(what: string): string {
  if (found !== undefined) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  found = findPackageRoot(start);
  if (found === undefined) {
    throw new Error(
      `${what} needs the files of the ralph-machine package, but there is no ralph-machine package.json above ${start} (is ralph-machine bundled into another file?)`,
    );
  }
  return found;
}

let version: string | undefined;

/** Reads the version from the package's package.json; 'unknown' where there is none (the library bundled elsewhere). */
function readPackageVersion(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(join(packageRoot("ralph-machine's version"), 'package.json'), 'utf8'),
    );
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** ralph-machine's version from its package.json (read once): `ralph --version`, the MCP server's, a recording's. */
export function packageVersion(): string {
  version ??= readPackageVersion();
  return version;
}
