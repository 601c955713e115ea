import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { FORCED_EXIT_TYPE, type RecordedForcedExitLine, type RecordingSink } from './recording-format.js';

/** A recording written to a file, line by line, synchronously. */
export interface RecordingFile extends RecordingSink {
  readonly path: string;
  write(line: string): void;
  /**
   * Appends the forced-exit line: the host is ending its process before the run settled (ralph run's second
   * Ctrl-C), so a replay knows the run did not end on its own.
   */
  forcedExit(): void;
  /** Closes the file; later lines are dropped. Safe to call twice. */
  close(): void;
}

/** A recording file this process has open: its absolute path, and its device and inode. */
export interface OpenRecording {
  path: string;
  dev: number;
  ino: number;
}

/** The recording files open in this process, by descriptor. */
const openRecordings = new Map<number, OpenRecording>();

/**
 * The recording files this process has open: files ralph itself writes while a run goes, which the idle watch's
 * fingerprint leaves out.
 */
export function openRecordingFiles(): OpenRecording[] {
  return [...openRecordings.values()];
}

/**
 * Creates (or truncates) the file and returns it as a recording sink. Each line is written with one synchronous
 * write, so it is in the file before the run goes on: nothing is lost when the process exits, by process.exit or on
 * a signal, however the run ended. The file is readable by its owner only: it holds the objective and every report.
 * Throws when the file cannot be created.
 */
export function openRecordingFile(path: string): RecordingFile {
  const fd = openSync(path, 'w', 0o600);
  const { dev, ino } = fstatSync(fd);
  openRecordings.set(fd, { path: resolve(path), dev, ino });
  let closed = false;
  /** When the header was written: the t 0 of the run's lines. */
  let startedAt: number | undefined;
  const write = (line: string) => {
    if (closed) return;
    startedAt ??= performance.now();
    const bytes = Buffer.from(line, 'utf8');
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
  };
  return {
    path,
    write,
    forcedExit() {
      const line: RecordedForcedExitLine = {
        type: FORCED_EXIT_TYPE,
        t: Math.round(performance.now() - (startedAt ?? performance.now())),
      };
      write(`${JSON.stringify(line)}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      openRecordings.delete(fd);
      closeSync(fd);
    },
  };
}
