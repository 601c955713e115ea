import { fstatSync, lstatSync, readlinkSync } from 'node:fs';
import { openRecordingFiles } from '../inspect/recording-file.js';
import type { FileIdentity, IgnoredFiles } from '../workspace/workspace-fingerprint.js';

/**
 * Descriptor `fd` of this process as a regular file: its identity, and its path where the system says it (Linux's
 * /proc/self/fd, checked against the identity); null when it is not a regular file (a terminal, a pipe).
 */
function stdioFile(fd: number): { identity: FileIdentity; path: string | null } | null {
  let identity: FileIdentity;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    identity = { dev: stat.dev, ino: stat.ino };
  } catch {
    return null;
  }
  try {
    const path = readlinkSync(`/proc/self/fd/${fd}`);
    const stat = lstatSync(path);
    return { identity, path: stat.dev === identity.dev && stat.ino === identity.ino ? path : null };
  } catch {
    return { identity, path: null };
  }
}

/**
 * What ralph itself writes while a run goes, for the idle watch to leave out: the recordings open in this process
 * (with their rotated copies), and its own stdout and stderr when they are redirected to regular files. Read afresh
 * for each fingerprint.
 */
export function ownOutputFiles(): IgnoredFiles {
  const paths: string[] = [];
  const identities: FileIdentity[] = [];
  for (const recording of openRecordingFiles()) {
    paths.push(recording.path);
    identities.push({ dev: recording.dev, ino: recording.ino });
  }
  for (const fd of [1, 2]) {
    const file = stdioFile(fd);
    if (file === null) continue;
    identities.push(file.identity);
    if (file.path !== null) paths.push(file.path);
  }
  return { paths, identities };
}
