import { randomBytes } from 'node:crypto';
import { type FSWatcher, mkdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { notWaiting } from '../contract/answer-messages.js';
import {
  type AnswerOutcome,
  type AnswerSource,
  type PersonAnswer,
  personAnswerSchema,
  type RalphQuestion,
} from '../contract/answers.js';
import { RalphError } from '../contract/errors.js';
import { ralphStateFolder } from '../process/sandbox-spec.js';

// A local run that asks (`ralph run --ask`) waits in a folder of its own under ~/.ralph/asks/<run id>/: it writes
// `question.json` there, and `ralph answer` (another process, maybe another terminal) writes `answer.json` beside
// it. The folder is the user's (0700) and hidden from sandboxed agents (~/.ralph is), so an agent cannot answer its
// own question there; a file is data, read and checked where it is used, never run.

/** A waiting run's question file, as the run writes it and `ralph answer` reads it. */
export const questionFileSchema = z.strictObject({
  runId: z.string(),
  round: z.number().int().positive(),
  maxRounds: z.number().int().positive(),
  question: z.string(),
  waitMs: z.number().int().positive(),
  /** When the run started waiting (ms since the epoch). */
  askedAt: z.number(),
  /** The process that waits (gone: the run was killed; `ralph resume` of its recording waits again). */
  pid: z.number().int().positive(),
  /** The run's recording, when it has one: what `ralph resume` takes. */
  recording: z.string().optional(),
});

/** A waiting run's question file. */
export type QuestionFile = z.infer<typeof questionFileSchema>;

/** An answer file: the answer and the round whose question it answers (an answer to an older question is void). */
const answerFileSchema = z.strictObject({
  runId: z.string(),
  round: z.number().int().positive(),
  answer: personAnswerSchema,
});

/** The folder every local run's questions wait in. */
export const asksFolder = (stateDir: string = ralphStateFolder()): string => join(stateDir, 'asks');

/** A run id as a path component: nanoid's alphabet (and a fleet's run ids), nothing that leaves the folder. */
const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The refusal of a run id that cannot name a run. */
export const badRunId = (runId: string): RalphError =>
  new RalphError({
    code: 'refused',
    message: `Ralph cannot find a run called ${JSON.stringify(runId)}: not a run id`,
  });

/** The folder of one run's question; refuses an id that is not a run id. */
export function askFolderOf(runId: string, stateDir?: string): string {
  if (!RUN_ID.test(runId)) throw badRunId(runId);
  return join(asksFolder(stateDir), runId);
}

/** Writes `body` as `path` at once (a temporary file renamed): a reader never sees half of it. */
function writeAtomically(path: string, body: unknown): void {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** The JSON in a file, or undefined when there is no such file or it is not JSON. */
function jsonIn(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The question a run waits on (or waited on when it was killed), read and checked; undefined when none. */
export function readQuestion(runId: string, stateDir?: string): QuestionFile | undefined {
  const parsed = questionFileSchema.safeParse(jsonIn(join(askFolderOf(runId, stateDir), 'question.json')));
  return parsed.success && parsed.data.runId === runId ? parsed.data : undefined;
}

/**
 * Leaves an answer for the run's question: refused when the run waits on none. The run takes it when it next looks
 * (at once when it is alive; a killed run, when `ralph resume` waits again).
 */
export function leaveAnswer(runId: string, answer: PersonAnswer, stateDir?: string): QuestionFile {
  const question = readQuestion(runId, stateDir);
  if (question === undefined) throw new RalphError({ code: 'refused', message: notWaiting(runId) });
  const checked = personAnswerSchema.parse(answer);
  writeAtomically(join(askFolderOf(runId, stateDir), 'answer.json'), {
    runId,
    round: question.round,
    answer: checked,
  });
  return question;
}

/** Whether a process is alive (signal 0 checks without sending anything). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Options of the folder source. */
export interface AnswerFolderOptions {
  /** ralph's state folder (default ~/.ralph). */
  stateDir?: string;
  /** The run's recording, named in the question file for `ralph answer` to point at. */
  recording?: string;
  /** How often the folder is looked at besides its watch events, which some file systems never send (ms). */
  pollMs?: number;
}

/**
 * The answer source of a local run: writes the question file, then waits for an answer file for that question's
 * round, checked where it is read (a file another process wrote). An answer left before the run waited (a killed
 * run's, answered meanwhile) is taken at once. The files go once the wait ends, whichever way.
 */
export function answerFolderSource(options: AnswerFolderOptions = {}): AnswerSource {
  return (question: RalphQuestion, signal: AbortSignal) =>
    new Promise<AnswerOutcome>((resolve, reject) => {
      const folder = askFolderOf(question.runId, options.stateDir);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const file: QuestionFile = {
        runId: question.runId,
        round: question.round,
        maxRounds: question.maxRounds,
        question: question.question,
        waitMs: question.waitMs,
        askedAt: Date.now(),
        pid: process.pid,
        ...(options.recording === undefined ? {} : { recording: options.recording }),
      };
      writeAtomically(join(folder, 'question.json'), file);
      const answerPath = join(folder, 'answer.json');
      let watcher: FSWatcher | undefined;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        watcher?.close();
        clearInterval(timer);
        signal.removeEventListener('abort', onAbort);
        rmSync(folder, { recursive: true, force: true });
      };
      const look = () => {
        const parsed = answerFileSchema.safeParse(jsonIn(answerPath));
        if (!parsed.success) return;
        if (parsed.data.runId !== question.runId || parsed.data.round !== question.round) {
          // An answer to another question (an older round's) is void: removed, and the wait goes on.
          rmSync(answerPath, { force: true });
          return;
        }
        finish();
        resolve(parsed.data.answer);
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        watcher = watch(folder, () => look());
        watcher.on('error', () => {});
      } catch {
        // No watch here: the poll alone finds the answer.
      }
      timer = setInterval(look, options.pollMs ?? 1_000);
      timer.unref?.();
      look();
    });
}
