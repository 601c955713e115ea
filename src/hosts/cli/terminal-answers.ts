import { createInterface } from 'node:readline';
import { TERMINAL_ANSWER_CLOSED, TERMINAL_ANSWER_PROMPT } from '../../contract/answer-messages.js';
import { type AnswerOutcome, type AnswerSource, answerTextProblem } from '../../contract/answers.js';

/**
 * The answer source of a run at a terminal: after the question (which the progress lines print), it prompts on
 * `output` and takes the first non-empty line typed on `input` as the answer. An empty line is ignored (a stray
 * Enter must not answer for the person); an answer that is too long is refused and the prompt stays. Ctrl-D (the end
 * of `input`) stops reading the terminal for the rest of the run, and the wait goes on for the other sources
 * (`ralph answer`): this source then never resolves. The terminal is read without readline's raw mode, so Ctrl-C
 * still reaches the process as SIGINT and cancels the run as everywhere else.
 */
export function terminalAnswerSource(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): AnswerSource {
  let ended = false;
  return (_question, signal) =>
    new Promise<AnswerOutcome>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (ended) {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        return;
      }
      const lines = createInterface({ input, terminal: false });
      const done = () => {
        signal.removeEventListener('abort', onAbort);
        lines.off('close', onEnd);
        lines.off('line', onLine);
        // Closing pauses the input: a paused terminal keeps the process from exiting no longer than it must.
        lines.close();
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const onLine = (line: string) => {
        if (line.trim() === '') return;
        const problem = answerTextProblem(line);
        if (problem !== undefined) {
          output.write(`ralph: ${problem}\n${TERMINAL_ANSWER_PROMPT}\n`);
          return;
        }
        done();
        resolve({ kind: 'answer', text: line.trim(), by: 'terminal' });
      };
      const onEnd = () => {
        ended = true;
        signal.removeEventListener('abort', onAbort);
        lines.off('line', onLine);
        output.write(`ralph: ${TERMINAL_ANSWER_CLOSED}\n`);
        // Pending until the wait ends another way; then it is aborted like every source.
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      lines.on('line', onLine);
      lines.on('close', onEnd);
      output.write(`ralph: ${TERMINAL_ANSWER_PROMPT}\n`);
    });
}

/**
 * The answer source of a local run that asks: the answer folder (`ralph answer` from anywhere), raced with the
 * terminal when there is one to read (stdin a TTY, and no --json: a script that reads JSON is no person typing).
 */
export async function localAnswerSource(options: {
  recording: string | undefined;
  json: boolean;
}): Promise<AnswerSource> {
  const { answerFolderSource } = await import('../answer-folder.js');
  const folder = answerFolderSource(options.recording === undefined ? {} : { recording: options.recording });
  if (options.json || process.stdin.isTTY !== true) return folder;
  const { firstAnswer } = await import('../../actors/answer-inbox.js');
  return firstAnswer([folder, terminalAnswerSource(process.stdin, process.stderr)]);
}
