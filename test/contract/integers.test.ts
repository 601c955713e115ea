import { describe, expect, it } from 'vitest';
import { isPositiveSafeInteger, positiveSafeInteger } from '../../src/contract/integers.js';

describe('a count, a size or a limit is a whole number from 1 up', () => {
  it('is returned as it is when it is one', () => {
    expect(positiveSafeInteger(1, 'maxSteps')).toBe(1);
    expect(positiveSafeInteger(Number.MAX_SAFE_INTEGER, 'maxSteps')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    0,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER + 1,
    '3',
    null,
    undefined,
  ])('refuses %j with a RangeError naming what it is', (value) => {
    expect(isPositiveSafeInteger(value)).toBe(false);
    expect(() => positiveSafeInteger(value, 'the verify output cap')).toThrow(
      new RangeError('the verify output cap must be a positive whole number'),
    );
  });
});
