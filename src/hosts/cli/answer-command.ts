import { closeSync, openSync, readSync, statSync } from 'node:fs';
import {
  ANSWER_ARGUMENT_PROBLEMS,
  answerForGoneRunText,
  answerLeftText,
  answerTargetProblem,
  notWaiting,
} from '../../contract/answer-messages.js';
import { answerTextProblem, type PersonAnswer } from '../../contract/answers.js';
import { RalphError } from '../../contract/errors.js';
import { parseRecordingHeader } from '../../inspect/recording-reader.js';
import { stripControl } from '../../render/terminal-text.js';
import {
  askFolderOf,
  leaveAnswer,
  processIsAlive,
  type QuestionFile,
  readQuestion,
} from '../../run/answer-folder.js';
import { EXIT } from './exit-codes.js';
import type { FleetOptions } from './fleet-cli.js';
import { printFailure } from './print-failure.js';

/** The options of `ralph answer`: a fleet run's database besides. */
export interface AnswerOptions extends FleetOptions {
  /** End the run blocked now instead of answering. */
  giveUp?: boolean;
}

/** Whether a fleet's database is named (an option, or $RALPH_DATABASE_URL): where a run with no local question waits. */
const fleetConfigured = (options: FleetOptions) =>
  options.databaseUrl !== undefined ||
  options.databaseUrlFile !== undefined ||
  (process.env.RALPH_DATABASE_URL ?? '') !== '';

/** Who a `ralph answer` says answered, in the run's progress and recording. */
const BY = 'ralph answer';

/** The most of a recording read for its header line: a header is small, the rest of the file is not needed. */
const HEADER_BYTES = 1 << 20;

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** The answer the arguments give; refused when they give none, two, or a text the run would not take. */
function answerOf(text: string | undefined, options: AnswerOptions): PersonAnswer {
  if (options.giveUp === true) {
    if (text !== undefined) throw refuse(ANSWER_ARGUMENT_PROBLEMS.both);
    return { kind: 'give-up', by: BY };
  }
  if (text === undefined) throw refuse(ANSWER_ARGUMENT_PROBLEMS.neither);
  const problem = answerTextProblem(text);
  if (problem !== undefined) throw refuse(problem);
  return { kind: 'answer', text: text.trim(), by: BY };
}

/** The first line of a file, read up to HEADER_BYTES. */
function firstLineOf(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
    return buffer.subarray(0, read).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
}

/** Whether a path names a file (not a folder, not nothing). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The run a target names: a recording file's run (its header's run id), or the target itself as a run id. A file
 * that is no recording is still taken as a run id when it reads as one; anything else is refused.
 */
export function runIdOf(target: string): string {
  let why = 'no such file';
  if (isFile(target)) {
    try {
      return parseRecordingHeader(firstLineOf(target)).runId;
    } catch {
      // Its lines are not quoted back: the file may be anything of the user's.
      why = "the file is not a run's recording";
    }
  }
  try {
    askFolderOf(target);
    return target;
  } catch {
    throw refuse(answerTargetProblem(target, why));
  }
}

/** Where a run has no local question and no fleet's database is named: the run does not wait. */
function noLocalQuestion(runId: string): never {
  throw refuse(notWaiting(runId));
}

/** Leaves the answer beside the question; a run that stopped waiting meanwhile (its folder gone) is not waiting. */
function leave(runId: string, answer: PersonAnswer): QuestionFile {
  try {
    return leaveAnswer(runId, answer);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') noLocalQuestion(runId);
    throw error;
  }
}

/**
 * `ralph answer <run-id|recording> "text"` (or `--give-up`): answers the question a local run that asks (`ralph run
 * --ask`) waits on, from any terminal of the same user. The answer is left in the run's ask folder under ~/.ralph;
 * the waiting run takes it at once. A run killed while it waited keeps its question: the answer is kept for
 * `ralph resume` of its recording, which waits again and takes it, and this says so. Refused (exit 2): a bad target,
 * a run that waits on nothing, an empty or too long answer.
 */
export async function answerCommand(
  target: string,
  text: string | undefined,
  options: AnswerOptions,
): Promise<number> {
  try {
    const answer = answerOf(text, options);
    const runId = runIdOf(target);
    if (readQuestion(runId) === undefined) {
      // No local question: a fleet run answers through its database, when one is configured.
      if (fleetConfigured(options)) {
        const { answerFleetRun } = await import('./answer-fleet.js');
        return answerFleetRun(runId, answer, options);
      }
      noLocalQuestion(runId);
    }
    const question = leave(runId, answer);
    process.stdout.write(`${answerLeftText(runId, question.round, answer.kind === 'give-up')}\n`);
    if (!processIsAlive(question.pid))
      process.stderr.write(
        `ralph: ${stripControl(answerForGoneRunText(runId, question.pid, question.recording))}\n`,
      );
    return EXIT.complete;
  } catch (error) {
    return printFailure(error, false);
  }
}
