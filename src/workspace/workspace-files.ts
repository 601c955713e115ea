import { constants, type Dirent } from 'node:fs';
import {
  access,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { readHead } from './file-head.js';
import { isInsideRoot, resolveInWorkspace, WorkspaceEscapeError } from './workspace-path.js';

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;
const FOLDER_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/**
 * A workspace whose files are opened confined to it. Checking a path and then opening it leaves a gap in which a
 * folder on the way can be swapped for a symbolic link out of the workspace, so every open is checked again where
 * the descriptor really is. Where `/proc/self/fd` names each descriptor (Linux), folders are walked one at a time
 * from the root, each entry opened relative to the folder already held (`/proc/self/fd/<fd>/<name>`, the `openat`
 * Node lacks) and never through a link, so nothing is ever created or read outside. Elsewhere the opened descriptor
 * is compared (device and inode) with what its path leads to: that refuses a link that is in place, and most swaps,
 * but not a swap timed to the instant between the check and the use.
 */
export interface Confinement {
  /** The workspace as a real path. */
  root: string;
  /** True where `/proc/self/fd/<fd>` names what a descriptor really is. */
  procFd: boolean;
}

let procFdAvailable: Promise<boolean> | undefined;

/** The confinement of a workspace root (a real path), with `/proc/self/fd` used where the system has it. */
export async function confinementOf(root: string): Promise<Confinement> {
  procFdAvailable ??= access('/proc/self/fd').then(
    () => true,
    () => false,
  );
  return { root, procFd: await procFdAvailable };
}

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;

/** A folder of the workspace held open, with the path it was reached by. */
interface Held {
  handle: FileHandle;
  path: string;
}

/** The path that opens `name` inside a held folder: through its descriptor where the system allows it. */
const entryOf = (c: Confinement, folder: Held, name: string): string =>
  c.procFd ? `/proc/self/fd/${folder.handle.fd}/${name}` : path.join(folder.path, name);

/** The error of an open that met something else than what the check saw. */
function changedUnderUse(error: unknown, requested: string): unknown {
  const code = codeOf(error);
  // O_NOFOLLOW meeting a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
  if (code === 'ELOOP' || code === 'EMLINK')
    return new WorkspaceEscapeError(`Refused: "${requested}" became a symbolic link while it was in use`);
  if (code === 'ENOTDIR') return new Error(`"${requested}" passes through something that is not a folder`);
  if (code === 'ENOENT') return new Error(`"${requested}" does not exist`);
  // The path opened may be a /proc/self/fd one: name the child's path and the reason, not the path opened.
  if (typeof code === 'string')
    return new Error(`"${requested}" could not be opened (${code})`, { cause: error });
  return error;
}

/** Refuses a descriptor that is not inside the workspace, wherever the path it was opened by led. */
async function assertOpenedInside(
  c: Confinement,
  handle: FileHandle,
  openedAs: string,
  requested: string,
): Promise<void> {
  const refused = () =>
    new WorkspaceEscapeError(`Refused: "${requested}" led outside the workspace while it was in use`);
  if (c.procFd) {
    if (!isInsideRoot(c.root, await readlink(`/proc/self/fd/${handle.fd}`))) throw refused();
    return;
  }
  // Without a name for the descriptor, its inode is compared with what the path leads to now, resolved twice
  // around the comparison. That narrows the window of a swap but cannot close it (a folder flipped back and forth
  // at just the right moments still passes): only the /proc walk above is free of races.
  const before = await realpath(openedAs).catch(() => null);
  if (before === null || !isInsideRoot(c.root, before)) throw refused();
  const [now, opened] = await Promise.all([lstat(before), handle.stat()]);
  const after = await realpath(openedAs).catch(() => null);
  if (now.dev !== opened.dev || now.ino !== opened.ino || after !== before) throw refused();
}

/** Opens `at`, telling what a failure means for the path the child asked for. */
async function openChecked(at: string, flags: number, requested: string): Promise<FileHandle> {
  try {
    return await open(at, flags);
  } catch (error) {
    throw changedUnderUse(error, requested);
  }
}

/**
 * Opens the folder at `real` (a real path inside the root), walking from the root one folder at a time without
 * following links; with `create`, missing folders are made on the way.
 */
async function holdFolder(c: Confinement, real: string, requested: string, create: boolean): Promise<Held> {
  let held: Held = {
    handle: await openChecked(c.root, FOLDER_FLAGS, requested),
    path: c.root,
  };
  try {
    for (const name of path.relative(c.root, real).split(path.sep).filter(Boolean)) {
      const at = entryOf(c, held, name);
      const next = path.join(held.path, name);
      let handle: FileHandle;
      try {
        handle = await open(at, FOLDER_FLAGS);
      } catch (error) {
        if (!create || codeOf(error) !== 'ENOENT') throw changedUnderUse(error, requested);
        await mkdir(at).catch((made: unknown) => {
          if (codeOf(made) !== 'EEXIST') throw changedUnderUse(made, requested);
        });
        handle = await openChecked(at, FOLDER_FLAGS, requested);
      }
      await held.handle.close();
      held = { handle, path: next };
      // Walked through descriptors, each step stays in the folder before it; a walk by path is checked at each.
      if (!c.procFd) await assertOpenedInside(c, handle, next, requested);
    }
    await assertOpenedInside(c, held.handle, held.path, requested);
    return held;
  } catch (error) {
    await held.handle.close();
    throw error;
  }
}

/** Opens the file at `real` for reading, confined; refuses anything but a regular file. */
async function openFileToRead(c: Confinement, real: string, requested: string): Promise<FileHandle> {
  if (real === c.root) throw new Error(`"${requested}" is a folder, not a file`);
  const folder = await holdFolder(c, path.dirname(real), requested, false);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted in the workspace must not hang the tool (it is refused below).
    handle = await openChecked(
      entryOf(c, folder, path.basename(real)),
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
      requested,
    );
  } finally {
    await folder.handle.close();
  }
  try {
    await assertOpenedInside(c, handle, real, requested);
    if (!(await handle.stat()).isFile()) throw new Error(`"${requested}" is not a regular file`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads up to `maxBytes` of a workspace file as text, noting how much more there is. The path is checked, then
 * the file opened confined and checked again by its descriptor.
 */
export async function readWorkspaceFile(
  c: Confinement,
  requested: string,
  maxBytes: number,
): Promise<string> {
  const real = await resolveInWorkspace(c.root, requested);
  const handle = await openFileToRead(c, real, requested);
  try {
    const { text, size } = await readHead(handle, maxBytes);
    return size > maxBytes ? `${text}\n[… file continues: ${size - maxBytes} more bytes not shown]` : text;
  } finally {
    await handle.close();
  }
}

/**
 * Creates or replaces a workspace file with `content`, making missing folders; returns its real path. The file is
 * opened without truncating (created exclusively when new, so the tool knows it made it), checked by its
 * descriptor, and only then truncated and written; a file it created where it must not be is removed again.
 */
export async function writeWorkspaceFile(
  c: Confinement,
  requested: string,
  content: string,
): Promise<string> {
  const real = await resolveInWorkspace(c.root, requested);
  if (real === c.root) throw new Error(`"${requested}" is a folder, not a file`);
  const folder = await holdFolder(c, path.dirname(real), requested, true);
  const at = entryOf(c, folder, path.basename(real));
  try {
    let created = true;
    let handle: FileHandle;
    try {
      handle = await open(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw changedUnderUse(error, requested);
      created = false;
      // O_NONBLOCK: opening a FIFO for writing fails at once instead of waiting for a reader.
      handle = await openChecked(at, O_WRONLY | O_NOFOLLOW | O_NONBLOCK, requested);
    }
    try {
      try {
        await assertOpenedInside(c, handle, real, requested);
        if (!(await handle.stat()).isFile()) throw new Error(`"${requested}" is not a regular file`);
      } catch (error) {
        if (created) await removeCreated(handle, at);
        throw error;
      }
      await handle.truncate(0);
      // Nothing was read or written yet, so the descriptor's position is 0: the content lands at the start.
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return real;
  } finally {
    await folder.handle.close();
  }
}

/** Removes a file this tool just created, if the name still holds it. */
async function removeCreated(handle: FileHandle, at: string): Promise<void> {
  const [now, opened] = await Promise.all([lstat(at).catch(() => null), handle.stat()]);
  if (now !== null && now.dev === opened.dev && now.ino === opened.ino) await unlink(at).catch(() => {});
}

/** A folder of the workspace held open for a listing: its entries, and its sub-folders opened through it. */
export interface WorkspaceFolder {
  /** The folder's real path. */
  path: string;
  entries: Dirent[];
  /** Opens a sub-folder of this one (an entry that is a folder), confined like this one. */
  open(name: string): Promise<WorkspaceFolder>;
  /** Lets the folder go; its sub-folders must be closed first or on their own. */
  close(): Promise<void>;
}

async function listHeld(c: Confinement, held: Held, requested: string): Promise<WorkspaceFolder> {
  let entries: Dirent[];
  try {
    // Read through the descriptor where possible, so the entries are those of the folder checked.
    entries = await readdir(c.procFd ? `/proc/self/fd/${held.handle.fd}` : held.path, {
      withFileTypes: true,
    });
    if (!c.procFd) {
      const [now, opened] = await Promise.all([lstat(held.path), held.handle.stat()]);
      if (now.dev !== opened.dev || now.ino !== opened.ino) {
        throw new WorkspaceEscapeError(`Refused: "${requested}" changed while it was listed`);
      }
    }
  } catch (error) {
    await held.handle.close();
    throw error;
  }
  return {
    path: held.path,
    entries,
    open: async (name) => {
      const child = path.join(held.path, name);
      const handle = await openChecked(entryOf(c, held, name), FOLDER_FLAGS, requested);
      try {
        await assertOpenedInside(c, handle, child, requested);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return listHeld(c, { handle, path: child }, requested);
    },
    close: () => held.handle.close(),
  };
}

/** A workspace folder held open for listing, read from a descriptor checked to be inside the workspace. */
export async function openWorkspaceFolder(c: Confinement, requested: string): Promise<WorkspaceFolder> {
  const real = await resolveInWorkspace(c.root, requested);
  return listHeld(c, await holdFolder(c, real, requested, false), requested);
}
