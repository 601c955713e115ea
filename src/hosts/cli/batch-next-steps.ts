import { quote } from 'shell-quote';
import type { BatchRecording } from '../../inspect/batch-recording.js';
import type { NextStep } from '../../visualize/batch-outcome.js';

/**
 * The command that lands one task of a batch once a person fixed its branch: `ralph batch --land <batch> <task>`,
 * with the `--cwd` the batch was given (as it was given), so that it runs as printed where the batch was started.
 */
export function landCommandLine(batchId: string, taskId: string, cwd: string | undefined): string {
  return quote(['ralph', 'batch', '--land', batchId, taskId, ...(cwd === undefined ? [] : ['--cwd', cwd])]);
}

/**
 * The command that goes on with a cancelled batch: `ralph batch` with the arguments it was started with (`args`,
 * those after `batch`), its `--resume` (a resumed batch's) replaced by one naming the batch's recording.
 */
export function resumeCommandLine(args: readonly string[], recordingPath: string): string {
  const kept: string[] = [];
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at] as string;
    if (arg === '--resume') at += 1;
    else if (!arg.startsWith('--resume=')) kept.push(arg);
  }
  return quote(['ralph', 'batch', ...kept, '--resume', recordingPath]);
}

/** What the next steps of a batch are made from: its recording as read, and where that recording is. */
export interface BatchPlace {
  recording: BatchRecording;
  /** The recording's path, as `ralph report` was given it. */
  recordingPath: string;
}

/** The command that resumes the batch: its tasks file (as recorded, else a placeholder) and its recording. */
function resumeCommand({ recording, recordingPath }: BatchPlace): string {
  const tasksFile = recording.header.tasksFile;
  return `ralph batch ${tasksFile === undefined ? '<tasks file>' : quote([tasksFile])} --resume ${quote([recordingPath])}`;
}

/**
 * What to do about one task, by how it ended: a task that needs review is fixed by hand on its branch and landed
 * with `ralph batch --land`; a cancelled one, or one the recording ends before it settled, runs again when the
 * batch is resumed. A landed, failed or skipped task has none.
 */
export function taskNextStep(
  place: BatchPlace,
  taskId: string,
  status: string,
  branch: string,
): NextStep | null {
  const { batchId } = place.recording.header;
  switch (status) {
    case 'needs-review':
      return {
        text: `Fix the branch ${branch} by hand, then land it:`,
        command: landCommandLine(batchId, taskId, undefined),
      };
    case 'landed':
    case 'failed':
    case 'skipped':
      return null;
    case 'cancelled':
      return { text: 'Run it again from its branch, with the batch resumed:', command: resumeCommand(place) };
    default:
      return {
        text: 'The batch did not settle: resume it, and this task goes on:',
        command: resumeCommand(place),
      };
  }
}

/** What to do about the batch as a whole: resume it when it did not settle or was cancelled; undo what landed. */
export function batchNextSteps(place: BatchPlace, statuses: readonly string[]): NextStep[] {
  const { header, settled } = place.recording;
  const steps: NextStep[] = [];
  if (settled === null || statuses.includes('cancelled'))
    steps.push({
      text:
        settled === null
          ? 'The batch did not settle (its process ended first): resume it.'
          : 'Resume the batch: its cancelled tasks run again from their branches.',
      command: resumeCommand(place),
    });
  if (statuses.includes('landed'))
    steps.push(
      {
        text: `See what landed on ${header.target}:`,
        command: `git log --oneline ${quote([`${header.start}..${header.target}`])}`,
      },
      {
        text: `Undo the whole batch: ${header.target} back on the commit it started from.`,
        command: `ralph batch --rollback ${header.batchId}`,
      },
    );
  return steps;
}
