import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isInsideRoot } from '../workspace/workspace-path.js';

/** A run recording a batch's header names outside the batch's `runs/` folder: the report is refused. */
export class RunPathRefused extends Error {
  override name = 'RunPathRefused';
}

/**
 * The path of the run recording `runFile` that a batch's header names for task `taskId` (relative to the
 * batch recording's folder), or null when there is none. A header is data: a path that leads out of the batch's
 * `runs/` folder, by `..`, as an absolute path or through a symbolic link (the run's file or `runs/` itself), is
 * refused, since its report page would be written beside it.
 */
export function batchRunPath(batchRecording: string, taskId: string, runFile: string): string | null {
  const folder = dirname(batchRecording);
  const refused = () =>
    new RunPathRefused(
      `task ${JSON.stringify(taskId)}'s run ${JSON.stringify(runFile)} is not in the batch's runs/ folder`,
    );
  const lexical = resolve(folder, runFile);
  const runs = resolve(folder, 'runs');
  if (lexical === runs || !isInsideRoot(runs, lexical)) throw refused();
  if (!existsSync(lexical)) return null;
  const real = realpathSync(lexical);
  const realRuns = join(realpathSync(folder), 'runs');
  if (real === realRuns || !isInsideRoot(realRuns, real)) throw refused();
  return lexical;
}
