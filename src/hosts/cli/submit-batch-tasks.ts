import { readTasksFile } from '../../batch/tasks-file.js';
import { tasksAsTrusted } from '../../batch/tasks-trust.js';
import type { BatchTask } from '../../contract/batch-tasks.js';
import { tasksFileAndGitHub, trustTasksWithGitHub } from '../../contract/github-task-messages.js';
import { assertNoGitHubFilter, readGitHubTasks } from './batch-github-tasks.js';
import { refuse, SUBMIT_BATCH, type SubmitBatchOptions } from './submit-batch-options.js';

/** The tasks file `--batch` names, if it names one. */
const tasksFileOf = (options: SubmitBatchOptions): string | undefined =>
  typeof options.batch === 'string' ? options.batch : undefined;

/**
 * The batch's tasks: those of the tasks file as the command line lets them run (a command it names needs
 * --trust-tasks), or with `--from-github` those of the repository's issues, read here with this host's token (a
 * taken or skipped issue said on stderr). On the fleet the token is the worker's: the submitter's stays in this
 * process, and goes from its environment once the client holds it.
 */
export async function readBatchTasks(options: SubmitBatchOptions): Promise<BatchTask[]> {
  const said = (line: string) => process.stderr.write(`${SUBMIT_BATCH}: ${line}\n`);
  const file = tasksFileOf(options);
  const { fromGithub } = options;
  if (fromGithub !== undefined) {
    if (file !== undefined) throw refuse(tasksFileAndGitHub(SUBMIT_BATCH));
    if (options.trustTasks === true) throw refuse(trustTasksWithGitHub(SUBMIT_BATCH));
    // Loaded only here: a batch from a tasks file never loads the GitHub client.
    const { connectGitHub } = await import('./github-connect.js');
    const tasks = await readGitHubTasks({ ...options, fromGithub }, said, connectGitHub, SUBMIT_BATCH);
    // An issue's task is its id, objective and order, whatever else a task may hold: no issue names a command.
    return inOrder(tasks.map(({ id, objective, after }) => ({ id, objective, after })));
  }
  assertNoGitHubFilter(options, SUBMIT_BATCH);
  if (file === undefined)
    throw refuse('ralph submit --batch needs a tasks file, or --from-github OWNER/REPO --label NAME');
  const use = { command: SUBMIT_BATCH, file, nothing: 'nothing was submitted' };
  return inOrder(tasksAsTrusted(await readTasksFile(file, SUBMIT_BATCH), options, use, said));
}

/** The tasks in an order where every task comes after those it names in `after`. */
function inOrder(tasks: BatchTask[]): BatchTask[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const ordered: BatchTask[] = [];
  // A set, not ordered.includes: a 1 MiB checklist holds some 100,000 tasks, and a scan per task would be quadratic.
  const placed = new Set<BatchTask>();
  const visit = (task: BatchTask) => {
    if (placed.has(task)) return;
    for (const before of task.after) visit(byId.get(before) as BatchTask);
    placed.add(task);
    ordered.push(task);
  };
  for (const task of tasks) visit(task);
  return ordered;
}
