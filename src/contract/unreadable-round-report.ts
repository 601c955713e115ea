/**
 * A provider's word that its child left no usable report, and why. A provider resolves the report promise with one
 * (a rejection would be an ordinary child failure): `missing` when the child produced nothing a report could be read
 * from, `malformed` when what it produced cannot be a report (a report file that is not JSON). The run turns it into
 * the reference's workflow failure and keeps `problem` as the reason. It carries a symbol key, so no JSON a child
 * writes can forge one, and `Symbol.for`, so two copies of the package still recognise each other's.
 */
export interface UnreadableReport {
  readonly [UNREADABLE_REPORT]: true;
  readonly kind: 'missing' | 'malformed';
  /** What was wrong, in a provider's words (e.g. the JSON parse error). */
  readonly problem: string;
}

const UNREADABLE_REPORT: unique symbol = Symbol.for('ralph-machine.unreadable-report') as never;

/** Makes the value a provider resolves a report with when its child left no usable report. */
export function unreadableReport(kind: UnreadableReport['kind'], problem: string): UnreadableReport {
  return Object.freeze({ [UNREADABLE_REPORT]: true as const, kind, problem });
}

/** True for a value made by `unreadableReport`. */
export function isUnreadableReport(value: unknown): value is UnreadableReport {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[UNREADABLE_REPORT] === true
  );
}
