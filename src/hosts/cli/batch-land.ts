import { resolve } from 'node:path';
import { landFixedTask } from '../../batch/land-fixed.js';
import { RalphError } from '../../contract/errors.js';
import { GitError } from '../../workspace/git-command.js';
import { landCommandLine } from './batch-next-steps.js';
import type { BatchOptions } from './batch-options.js';
import { exitCodeOf, landHint, statusLine, summary } from './batch-output.js';
import { printFailure } from './print-failure.js';
import { trapBatchInterrupts } from './signals.js';

/** The options `--land` takes nothing of: it lands one task as the batch recorded it. */
const NOT_WITH_LAND: [keyof BatchOptions, string][] = [
  ['resume', '--resume'],
  ['rollback', '--rollback'],
  ['repo', '--repo'],
  ['into', '--into'],
  ['parallel', '--parallel'],
  ['verify', '--verify'],
  ['resolveConflicts', '--resolve-conflicts'],
];

/**
 * `ralph batch --land <batch-id> <task-id>`: once a person fixed a task's branch by hand, lands that one task
 * through the batch's own merge path (land-fixed.ts), and says how it went. Resolves with the exit code: 0 landed, 1
 * it needs review again, 2 refused, 130 cancelled.
 */
export async function landCommand(
  batchId: string,
  taskId: string | undefined,
  options: BatchOptions,
): Promise<number> {
  const say = (text: string) => process.stderr.write(`ralph batch: ${text}\n`);
  try {
    const given = NOT_WITH_LAND.find(([key]) => options[key] !== undefined);
    if (given !== undefined)
      throw new RalphError({
        code: 'refused',
        message: `ralph batch --land takes no ${given[1]}: it lands one task of a batch as the batch recorded it`,
      });
    if (taskId === undefined)
      throw new RalphError({
        code: 'refused',
        message: `ralph batch --land needs the task too: ralph batch --land ${batchId} <task-id>`,
      });
    const interrupt = new AbortController();
    const release = trapBatchInterrupts(() => {
      say('cancelling the landing (Ctrl-C again to force)');
      interrupt.abort();
    });
    const landing = await landFixedTask(batchId, taskId, resolve(options.cwd ?? '.'), options, {
      say,
      signal: interrupt.signal,
    }).finally(release);
    const { task, output, entry } = landing;
    if (entry.status === 'landed' || entry.status === 'needs-review') {
      say(`${taskId}: ${statusLine(entry, task.target)}`);
      if (entry.status === 'needs-review')
        say(`${taskId}: ${landHint(task.branch, landCommandLine(batchId, taskId, options.cwd))}`);
    } else say(`${taskId}: the landing was cancelled; the task stays ${task.status}`);
    const kept = new Set(landing.worktreeKept ? [taskId] : []);
    const next = { land: (id: string) => landCommandLine(batchId, id, options.cwd), resume: null };
    process.stdout.write(summary(output, task.folder, batchId, task.target, kept, new Set(), next));
    process.stdout.write(`recording ${task.recordingPath}; its page: ralph report ${task.recordingPath}\n`);
    return exitCodeOf(output, output.cancelReason);
  } catch (error) {
    if (error instanceof GitError)
      return printFailure(
        new RalphError({ code: 'refused', message: `ralph batch: ${error.message}` }),
        false,
      );
    return printFailure(error, false);
  }
}
