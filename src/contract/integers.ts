/** True for a whole number from 1 up that is exactly representable (a count, a size, a limit). */
export function isPositiveSafeInteger(value: unknown): value is number {
  // Number.isSafeInteger is false for anything that is no number (it does not coerce).
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** Returns `value` when it is a positive safe integer; throws a RangeError naming `what` otherwise. */
export function positiveSafeInteger(value: unknown, what: string): number {
  if (!isPositiveSafeInteger(value)) throw new RangeError(`${what} must be a positive whole number`);
  return value;
}
