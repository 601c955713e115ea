import { closeSync, openSync, readSync } from 'node:fs';
import {
  type BatchTask,
  MAX_TASKS_FILE_BYTES,
  parseTasksFile,
  TasksFileError,
} from '../contract/batch-tasks.js';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';

/**
 * The file's text, or null when it holds more than `limit` bytes. Read in pieces up to one byte past the limit, so a
 * huge file (or an endless pipe) costs no more than the limit; a pipe is read as a file is.
 */
function readAtMost(file: string, limit: number): string | null {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return filled > limit ? null : buffer.subarray(0, filled).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The tasks of a batch's tasks file, or a refusal of `command` (`ralph batch`, …) naming the file and its fault. */
export async function readTasksFile(file: string, command: string): Promise<BatchTask[]> {
  const refuse = (message: string) => new RalphError({ code: 'refused', message: `${command}: ${message}` });
  let text: string | null;
  try {
    text = readAtMost(file, MAX_TASKS_FILE_BYTES);
  } catch (error) {
    throw refuse(`cannot read the tasks file ${file}: ${errorText(error)}`);
  }
  if (text === null)
    throw refuse(
      `the tasks file ${file} is refused: it is larger than 1 MiB (${MAX_TASKS_FILE_BYTES.toLocaleString('en-US')} bytes), the most a tasks file may hold`,
    );
  try {
    return await parseTasksFile(file, text);
  } catch (error) {
    if (error instanceof TasksFileError) throw refuse(`the tasks file ${file} is refused: ${error.message}`);
    throw error;
  }
}
