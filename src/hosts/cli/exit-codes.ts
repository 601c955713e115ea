import type { RalphErrorCode } from '../../contract/errors.js';
import type { RalphResultStatus } from '../../contract/types.js';

/** The exit codes of `ralph run`, one per way a run can end. */
export const EXIT = Object.freeze({
  complete: 0,
  failed: 1,
  refused: 2,
  blocked: 3,
  budgetLimited: 4,
  cancelled: 130,
});

/** Where a command's action leaves its exit code, for `ralph` to exit with once commander is done. */
export type SetExitCode = (code: number) => void;

/** The exit code of a settled run. */
export function exitCodeForStatus(status: RalphResultStatus): number {
  switch (status) {
    case 'complete':
      return EXIT.complete;
    case 'blocked':
      return EXIT.blocked;
    case 'budget-limited':
      return EXIT.budgetLimited;
  }
}

/** The exit code of a run that did not settle with an envelope. */
export function exitCodeForError(code: RalphErrorCode): number {
  switch (code) {
    case 'refused':
      return EXIT.refused;
    case 'cancelled':
      return EXIT.cancelled;
    case 'workflow-failed':
    case 'child-failed':
      return EXIT.failed;
  }
}
