import { readdirSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';

/** Folders of a home that hold many tools' files, so a tool's own root is one level deeper. */
const CONTAINERS = new Set(['.local', '.local/share', '.local/lib', '.config', '.cache']);

/**
 * What the private home must still show so that the programs a round runs can start: the folder under the home a
 * program, or a PATH entry, really lives in (`~/.nvm`, `~/.local/share/claude`, `~/.npm-global`), read-only. A
 * program outside the home needs nothing: the root file system is there, read-only.
 */
function toolRootOf(path: string, home: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  const rel = relative(home, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const parts = rel.split(sep);
  let depth = 1;
  while (depth < parts.length && CONTAINERS.has(parts.slice(0, depth).join('/'))) depth += 1;
  return join(home, ...parts.slice(0, depth));
}

/** The symbolic links in a folder, as paths (bounded: a PATH folder with thousands of entries is not searched). */
function linksIn(dir: string): string[] {
  try {
    const links = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isSymbolicLink());
    return links.slice(0, 1_000).map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
}

/**
 * The tool folders under `home` that the PATH's entries and the given programs (this Node, ralph's own package)
 * live in, each once: bound read-only into the sandbox's private home.
 */
export function toolFoldersUnder(
  home: string,
  path: string | undefined,
  programs: readonly string[],
): string[] {
  const entries = (path ?? '').split(delimiter).filter((entry) => isAbsolute(entry));
  // A PATH folder in the home (~/.local/bin) holds links to where each tool lives (~/.local/share/claude/…).
  const linked = entries.filter((entry) => toolRootOf(entry, home) !== undefined).flatMap(linksIn);
  const candidates = [...entries, ...linked, ...programs];
  const roots = new Set<string>();
  for (const candidate of candidates) {
    const root = toolRootOf(candidate, home);
    if (root !== undefined) roots.add(root);
  }
  return [...roots];
}
