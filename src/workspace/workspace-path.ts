import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path a workspace tool refused because it leads outside the workspace. */
export class WorkspaceEscapeError extends Error {
  override readonly name = 'WorkspaceEscapeError';
}

/** True when `target` is `root` itself or lies under it (both absolute and normalized). */
export function isInsideRoot(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

const hasCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

/**
 * The real path of `target`, resolving every symbolic link of the part that exists; the part that does not exist
 * yet (a file about to be written) is appended as written. A dangling link is refused: writing through it would
 * create its target wherever it points.
 */
async function realPathOfExistingPart(target: string, shown: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch (error) {
      if (!hasCode(error, 'ENOENT')) throw error;
      const link = await lstat(current).catch(() => null);
      if (link !== null)
        throw new WorkspaceEscapeError(`Refused: "${shown}" passes through a dangling symbolic link`);
      const parent = path.dirname(current);
      if (parent === current) throw error;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a path a child asked for against the workspace root (itself a real path) and refuses any that leads
 * outside it, whether written as an absolute path, through `..`, or through a symbolic link. It is the first half
 * of what keeps the file tools in the workspace: a folder swapped for a link after the check is caught where the
 * file is opened (workspace-files.ts). It is not a sandbox (the command tool runs real programs).
 */
export async function resolveInWorkspace(root: string, requested: string): Promise<string> {
  if (requested.includes('\0'))
    throw new WorkspaceEscapeError('Refused: a path must not contain NUL characters');
  const lexical = path.resolve(root, requested);
  if (!isInsideRoot(root, lexical))
    throw new WorkspaceEscapeError(`Refused: "${requested}" is outside the workspace`);
  const real = await realPathOfExistingPart(lexical, requested);
  if (!isInsideRoot(root, real)) {
    throw new WorkspaceEscapeError(
      `Refused: "${requested}" leads outside the workspace through a symbolic link`,
    );
  }
  return real;
}

/**
 * The workspace root as a real path. A folder that does not exist (a dangling symbolic link included) or a path
 * that is not a folder is refused with a message naming it, before any child starts.
 */
export async function workspaceRoot(cwd: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(cwd);
  } catch (error) {
    if (hasCode(error, 'ENOENT') || hasCode(error, 'ENOTDIR'))
      throw new Error(`the workspace "${cwd}" does not exist`, { cause: error });
    throw error;
  }
  const stats = await lstat(root);
  if (!stats.isDirectory()) throw new Error(`the workspace "${cwd}" is not a folder`);
  return root;
}
