import { isRalphError } from '../../contract/errors.js';
import { stripControl, terminalJson } from '../../render/terminal-text.js';
import { EXIT, exitCodeForError } from './exit-codes.js';

/**
 * Prints a failure (message, then its detail) on stderr, and as JSON on stdout under --json; returns its exit code.
 * `ralph run` and `ralph replay` share it, so a replay prints a failure exactly as the run did. The JSON is the
 * failure as it is (JSON escapes every control character).
 */
export function printFailure(error: unknown, json: boolean): number {
  if (!isRalphError(error)) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`ralph: internal error: ${text}\n`);
    return EXIT.failed;
  }
  // A detail the message already quotes (a provider that could not start) would only say the same thing twice. The
  // message and the detail can quote an agent (its output, its report): the terminal gets them without controls.
  const detail =
    error.detail === undefined || error.message.includes(error.detail) ? '' : `${error.detail}\n`;
  process.stderr.write(stripControl(`${error.message}\n${detail}`));
  if (json) process.stdout.write(`${terminalJson({ error: error.toJSON() })}\n`);
  return exitCodeForError(error.code);
}
