import { readFileSync } from 'node:fs';
import { type BatchTask, parseTasksFile, TasksFileError } from '../contract/batch-tasks.js';
import { readBatchRecording } from '../inspect/batch-recording.js';
import { refuse } from './batch-checks.js';

/** The tasks a batch recorded when it started, checked as a tasks file's are (a recording is a file anyone may edit). */
export async function recordedTasks(recordingPath: string): Promise<BatchTask[]> {
  let recorded: { id: string; objective: string; after: string[] }[];
  try {
    recorded = readBatchRecording(readFileSync(recordingPath, 'utf8')).header.tasks;
  } catch (error) {
    throw refuse(
      `ralph batch --resume ${recordingPath}: cannot read it: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const plain = recorded.map(({ id, objective, after }) => ({ id, objective, after }));
  try {
    return await parseTasksFile('recorded.json', JSON.stringify(plain));
  } catch (error) {
    if (error instanceof TasksFileError)
      throw refuse(`ralph batch --resume ${recordingPath}: its tasks are not a batch's: ${error.message}`);
    throw error;
  }
}
