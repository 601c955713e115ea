import { quote } from 'shell-quote';

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
