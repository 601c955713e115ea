import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { TERMINAL_ANSWER_CLOSED, TERMINAL_ANSWER_PROMPT } from '../../contract/answer-messages.js';
import { type AnswerOutcome, type AnswerSource, answerTextProblem } from '../../contract/answers.js';

/**
 * The answer source of a run at a terminal: after the question (which the progress lines print), it prompts on
 * `output` and takes the first non-empty line typed on `input` as the answer. An empty line is ignored (a stray
 * Enter must not answer for the person); an answer that is too long is refused and the prompt stays. Ctrl-D (the end
 * of `input`) stops reading the terminal for the rest of the run, and the wait goes on for the other sources
 * (`ralph answer`): this source then never resolves. The terminal is read without readline's raw mode, so Ctrl-C
 * still reaches the process as SIGINT and cancels the run as everywhere else. A run in the background of its
 * terminal (`ralph run --ask … &`) does not read it: the read would stop the whole run (SIGTTIN).
 */
export function terminalAnswerSource(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  foreground: () => boolean = inForeground,
): AnswerSource {
  let ended = false;
  return (_question, signal) =>
    new Promise<AnswerOutcome>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      // A job in the background that read its terminal would be stopped (SIGTTIN), its wait's timer with it: it
      // takes its answer from the other sources only.
      if (ended || !foreground()) {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        return;
      }
      // Sent to the job put in the background while it reads (Ctrl-Z, bg): ignored, the read fails instead of
      // stopping the run, and the terminal is let go for this question. Ignored before the first read.
      const ignore = () => {};
      process.on('SIGTTIN', ignore);
      const lines = createInterface({ input, terminal: false });
      const stopReading = () => {
        signal.removeEventListener('abort', onAbort);
        process.off('SIGTTIN', ignore);
        input.off('error', onError);
        lines.off('close', onEnd);
        lines.off('line', onLine);
        // Closing pauses the input: a paused terminal keeps the process from exiting no longer than it must.
        lines.close();
      };
      const onAbort = () => {
        stopReading();
        reject(signal.reason);
      };
      const onLine = (line: string) => {
        if (line.trim() === '') return;
        const problem = answerTextProblem(line);
        if (problem !== undefined) {
          output.write(`ralph: ${problem}\n${TERMINAL_ANSWER_PROMPT}\n`);
          return;
        }
        stopReading();
        resolve({ kind: 'answer', text: line.trim(), by: 'terminal' });
      };
      /** The terminal is done with: pending until the wait ends another way, then aborted like every source. */
      const letGo = () => {
        stopReading();
        output.write(`ralph: ${TERMINAL_ANSWER_CLOSED}\n`);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      };
      const onEnd = () => {
        ended = true;
        letGo();
      };
      const onError = () => letGo();
      signal.addEventListener('abort', onAbort, { once: true });
      input.on('error', onError);
      lines.on('line', onLine);
      lines.on('close', onEnd);
      output.write(`ralph: ${TERMINAL_ANSWER_PROMPT}\n`);
    });
}

/**
 * Whether this process is in the foreground of its terminal (its process group is the terminal's): Linux's
 * /proc/self/stat says (pgrp and tpgid); where it cannot tell, the process is taken to be.
 */
export function inForeground(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    // After "pid (name) ": state, ppid, pgrp, session, tty_nr, tpgid.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[2] === fields[5];
  } catch {
    return true;
  }
}

/**
 * The answer source of a local run that asks: the answer folder (`ralph answer` from anywhere), raced with the
 * terminal when there is one to read (stdin a TTY, and no --json: a script that reads JSON is no person typing).
 */
export async function localAnswerSource(options: {
  recording: string | undefined;
  json: boolean;
}): Promise<AnswerSource> {
  const { answerFolderSource } = await import('../../run/answer-folder.js');
  const folder = answerFolderSource(options.recording === undefined ? {} : { recording: options.recording });
  if (options.json || process.stdin.isTTY !== true) return folder;
  const { firstAnswer } = await import('../../actors/answer-inbox.js');
  return firstAnswer([folder, terminalAnswerSource(process.stdin, process.stderr)]);
}
