import type { RalphReport } from './types.js';

/** Why a call did not settle with an envelope. */
export type RalphErrorCode = 'refused' | 'workflow-failed' | 'child-failed' | 'cancelled';

/** The serializable description of a failure, as the machine's output carries it. */
export interface RalphFailure {
  code: RalphErrorCode;
  message: string;
  /** The round that failed, where one did. */
  round?: number;
  /** The last validated report before a failed round (null when none). */
  lastHandoff?: RalphReport | null;
  /** What the child or provider said, kept out of the seed's message text. */
  detail?: string;
}

/** Every failure, refusal and cancellation of the ralph tool; `message` is the reference's text. */
export class RalphError extends Error {
  override readonly name = 'RalphError';
  readonly code: RalphErrorCode;
  readonly round: number | undefined;
  readonly lastHandoff: RalphReport | null | undefined;
  readonly detail: string | undefined;
  readonly runId: string | undefined;

  constructor(failure: RalphFailure, options?: { runId?: string; cause?: unknown }) {
    super(failure.message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = failure.code;
    this.round = failure.round;
    this.lastHandoff = failure.lastHandoff;
    this.detail = failure.detail;
    this.runId = options?.runId;
  }

  /** The failure as plain data. */
  toJSON(): RalphFailure & { runId?: string } {
    const out: RalphFailure & { runId?: string } = { code: this.code, message: this.message };
    if (this.round !== undefined) out.round = this.round;
    if (this.lastHandoff !== undefined) out.lastHandoff = this.lastHandoff;
    if (this.detail !== undefined) out.detail = this.detail;
    if (this.runId !== undefined) out.runId = this.runId;
    return out;
  }
}

/** Narrows an unknown thrown value to a RalphError. */
export function isRalphError(value: unknown): value is RalphError {
  return value instanceof RalphError;
}
