// The message of the commits a batch makes on a task's branch, locally (`ralph batch`) and on the fleet (`ralph
// submit --batch`) alike. Its subject is the task's objective, so `git log` of a target reads as what was done; the
// batch, the task and the run go in the body and its trailers. The objective is text someone else wrote: what could
// rewrite a terminal showing the log, or break the message's shape, is taken out.

/** The longest subject, in characters, its ellipsis included (git's and most forges' customary width). */
export const SUBJECT_LIMIT = 72;

/** What a task commit names. */
export interface TaskCommit {
  batchId: string;
  taskId: string;
  /** The task's objective, as its tasks file gave it. */
  objective: string;
  /** The task's run, or null when it never started one (a loop cancelled before its first event). */
  runId: string | null;
  /** On the fleet, the round after which the branch was pushed; absent for the commit that ends the loop. */
  round?: number;
}

/** The `Ralph-Task:` trailer's value for a task of a batch. */
export const taskTrailerValue = (batchId: string, taskId: string): string => `${batchId}/${taskId}`;

/** Control characters (C0, DEL, C1) and the bidirectional overrides and isolates that reorder a line. */
const HIDDEN = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
/** Line ends, the Unicode ones included. */
const LINE_END = /\r\n|[\n\r\u2028\u2029]/;

/**
 * The subject a commit gets for `objective`: its first line that has any text, without control characters, white
 * space folded to single spaces, cut to {@link SUBJECT_LIMIT} characters with an ellipsis; `fallback` when the
 * objective has no such line.
 */
export function objectiveSubject(objective: string, fallback: string): string {
  const line =
    objective
      .split(LINE_END)
      .map((text) => text.replace(/\s+/g, ' ').replace(HIDDEN, '').trim())
      .find((text) => text !== '') ?? '';
  if (line === '') return fallback;
  const chars = Array.from(line);
  return chars.length <= SUBJECT_LIMIT
    ? line
    : `${chars
        .slice(0, SUBJECT_LIMIT - 1)
        .join('')
        .trimEnd()}…`;
}

/**
 * The whole message of a task's commit: the objective as its subject, a line naming the batch, task, run (and
 * round), and the trailers `Ralph-Batch:`, `Ralph-Run:` and `Ralph-Task: <batch-id>/<task-id>` (the last is how a
 * fleet landing and `ralph batch --rollback --repo` recognise the batch's commits on a target: keep it as it is).
 */
export function taskCommitMessage(commit: TaskCommit): string {
  const { batchId, taskId, runId, round } = commit;
  const names = `ralph batch ${batchId}: task ${taskId}${round === undefined ? '' : `, round ${round}`}${runId === null ? '' : ` (run ${runId})`}`;
  const trailers = [
    `Ralph-Batch: ${batchId}`,
    ...(runId === null ? [] : [`Ralph-Run: ${runId}`]),
    `Ralph-Task: ${taskTrailerValue(batchId, taskId)}`,
  ];
  return [
    objectiveSubject(commit.objective, names),
    `${names}: what the task's agents left uncommitted in its worktree, if anything.`,
    trailers.join('\n'),
  ].join('\n\n');
}
