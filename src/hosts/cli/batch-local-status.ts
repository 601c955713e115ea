import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { howToAnswer, questionText } from '../../contract/answer-messages.js';
import { statusOrphanedLine, statusWaitingLine } from '../../contract/batch-answer-messages.js';
import { idProblem } from '../../contract/batch-tasks.js';
import { type BatchRecording, isBatchRecording, readBatchRecording } from '../../inspect/batch-recording.js';
import type { TaskEntry, TaskStatus } from '../../machines/batch-types.js';
import { recordedHostRuns } from '../../process/recorded-host.js';
import { stripControlToLine, terminalJson } from '../../render/terminal-text.js';
import { asksFolder, processIsAlive, type QuestionFile, readQuestion } from '../../run/answer-folder.js';
import { gitLine } from '../../workspace/git-command.js';
import { batchFolder } from '../../workspace/git-worktree.js';
import { statusLine } from './batch-output.js';
import { EXIT } from './exit-codes.js';

// `ralph status <batch>` of a local batch (`ralph batch`): its recording says where each task got to, and a task's
// waiting question is the one under ~/.ralph/asks whose recording is the task's run recording (batch-loops.ts names
// it so). Everything printed comes from files another process wrote: printed without control characters.

/** The recording `id` names: a batch.jsonl path, or a batch id of the repository of the current folder; else null. */
async function recordingOf(id: string): Promise<string | null> {
  if (existsSync(id) && statSync(id).isFile()) return resolve(id);
  if (idProblem(id) !== null) return null;
  const repo = await gitLine(process.cwd(), ['rev-parse', '--show-toplevel']).catch(() => null);
  if (repo === null) return null;
  const path = join(await batchFolder(repo, id), 'batch.jsonl');
  return existsSync(path) ? path : null;
}

/** Every waiting question of this user's local runs, by the run recording it names: the latest asked of each. */
function questionsByRecording(): Map<string, QuestionFile> {
  const found = new Map<string, QuestionFile>();
  let runIds: string[] = [];
  try {
    runIds = readdirSync(asksFolder());
  } catch {
    return found;
  }
  for (const runId of runIds) {
    let question: QuestionFile | undefined;
    try {
      question = readQuestion(runId);
    } catch {
      continue;
    }
    if (question?.recording === undefined) continue;
    // A run that was killed waiting and then run anew leaves its old question behind: the newer one is the task's.
    const key = resolve(question.recording);
    const known = found.get(key);
    if (known === undefined || known.askedAt < question.askedAt) found.set(key, question);
  }
  return found;
}

/** One task of the batch as status shows it: where it got to, and the question its run waits on, if any. */
interface TaskState {
  id: string;
  status: string;
  note: string | null;
  question?: QuestionFile;
}

/** The tasks of a recorded batch, each with its last recorded status and the question its run waits on. */
function taskStates(recording: BatchRecording, folder: string): TaskState[] {
  const questions = questionsByRecording();
  return recording.header.tasks.map(({ id }) => {
    const line = recording.tasks.get(id);
    const run = recording.header.runs[id];
    const question = run === undefined ? undefined : questions.get(resolve(folder, run));
    return {
      id,
      status: line?.status ?? 'waiting',
      note: line?.note ?? null,
      ...(question === undefined ? {} : { question }),
    };
  });
}

/** A task's lines: its status, or its question with how to answer it (or that its batch stopped meanwhile). */
function taskLines(task: TaskState, target: string, now: number, batchRuns: boolean): string[] {
  const { question } = task;
  if (question === undefined) {
    const entry = {
      id: task.id,
      after: [],
      status: task.status as TaskStatus,
      note: task.note,
      conflicts: [],
    };
    const line = statusLine(entry satisfies TaskEntry, target) ?? task.status;
    return [stripControlToLine(`${task.id}: ${line}`)];
  }
  const asked = stripControlToLine(questionText(question.round, question.question));
  if (!batchRuns || !processIsAlive(question.pid))
    return [
      stripControlToLine(`${task.id}: ${statusOrphanedLine(question.runId, question.round)}`),
      `  ${asked}`,
    ];
  return [
    stripControlToLine(
      `${task.id}: ${statusWaitingLine(question.runId, question.round, question.askedAt, now)}`,
    ),
    `  ${asked}`,
    `  ${howToAnswer(question.runId)}`,
  ];
}

/** The batch's first line: whether it settled, still runs (`pid`), or stopped before it settled. */
function batchLine(recording: BatchRecording, path: string, pid: number | undefined): string {
  const { batchId, target } = recording.header;
  if (recording.settled !== null) return `batch ${batchId} on ${target}: settled`;
  return pid === undefined
    ? `batch ${batchId} on ${target}: stopped before it settled; go on with: ralph batch <tasks> --resume ${path}`
    : `batch ${batchId} on ${target}: running (process ${pid})`;
}

/**
 * `ralph status <batch>` of a local batch (its id, in the repository of the current folder, or its batch.jsonl):
 * the batch's state and one line per task, a waiting question with how to answer it; exit 0. Null when `id` names no
 * local batch (the fleet's status is asked then).
 */
export async function localBatchStatus(id: string, json: boolean): Promise<number | null> {
  const path = await recordingOf(id);
  if (path === null) return null;
  const text = readFileSync(path, 'utf8');
  if (!isBatchRecording(text)) return null;
  const recording = readBatchRecording(text);
  const tasks = taskStates(recording, dirname(path));
  if (json) {
    const { batchId, target } = recording.header;
    process.stdout.write(
      `${terminalJson({ batchId, target, settled: recording.settled !== null, tasks })}\n`,
    );
    return EXIT.complete;
  }
  const now = Date.now();
  const pid = recording.settled === null ? recordedHostRuns(recording.process) : undefined;
  const lines = [
    batchLine(recording, path, pid),
    ...tasks.flatMap((task) => taskLines(task, recording.header.target, now, pid !== undefined)),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.complete;
}
