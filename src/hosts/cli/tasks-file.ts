import { readFileSync } from 'node:fs';
import { type BatchTask, parseTasksFile, TasksFileError } from '../../contract/batch-tasks.js';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';

/** The tasks of a batch's tasks file, or a refusal of `command` (`ralph batch`, …) naming the file and its fault. */
export async function readTasksFile(file: string, command: string): Promise<BatchTask[]> {
  const refuse = (message: string) => new RalphError({ code: 'refused', message: `${command}: ${message}` });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw refuse(`cannot read the tasks file ${file}: ${errorText(error)}`);
  }
  try {
    return await parseTasksFile(file, text);
  } catch (error) {
    if (error instanceof TasksFileError) throw refuse(`the tasks file ${file} is refused: ${error.message}`);
    throw error;
  }
}
