import { isRalphError } from '../../contract/errors.js';
import { EXIT, exitCodeForError } from './exit-codes.js';

/**
 * Prints a failure (message, then its detail) on stderr, and as JSON on stdout under --json; returns its exit code.
 * `ralph run` and `ralph replay` share it, so a replay prints a failure exactly as the run did.
 */
export function reportFailure(error: unknown, json: boolean): number {
  if (!isRalphError(error)) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`ralph: internal error: ${text}\n`);
    return EXIT.failed;
  }
  // A detail the message already quotes (a provider that could not start) would only say the same thing twice.
  const detail =
    error.detail === undefined || error.message.includes(error.detail) ? '' : `${error.detail}\n`;
  process.stderr.write(`${error.message}\n${detail}`);
  if (json) process.stdout.write(`${JSON.stringify({ error: error.toJSON() }, null, 2)}\n`);
  return exitCodeForError(error.code);
}
