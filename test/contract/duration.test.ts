import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/contract/duration.js';
import { RalphError } from '../../src/contract/errors.js';

/** The refusal parseDuration throws for `text`, or a failure when it accepts it. */
function refusalOf(text: string, flag = '--max-time'): RalphError {
  try {
    parseDuration(text, flag);
  } catch (error) {
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).code).toBe('refused');
    return error as RalphError;
  }
  throw new Error(`parseDuration accepted ${JSON.stringify(text)}`);
}

describe('a duration flag reads milliseconds, seconds, minutes, hours and days', () => {
  it.each([
    ['1500ms', 1_500],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['1.5h', 5_400_000],
    ['0.5s', 500],
    ['2H', 7_200_000],
    ['1500MS', 1_500],
    ['  45m  ', 2_700_000],
    ['1ms', 1],
    ['24d 20h 31m 23s 647ms', MAX_DURATION_MS],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text, '--round-timeout')).toBe(ms);
  });

  it('reads a bare positive integer as seconds', () => {
    expect(parseDuration('90', '--max-time')).toBe(90_000);
    expect(parseDuration('1', '--max-time')).toBe(1_000);
  });
});

describe('a duration flag refuses what is not a positive duration, naming the flag and the rule', () => {
  it('refuses a word with the examples of what it takes', () => {
    expect(refusalOf('soon').message).toBe(
      '--max-time must be a duration such as 90s, 30m or 2h (got "soon")',
    );
  });

  it('refuses zero in every spelling', () => {
    expect(refusalOf('0', '--round-timeout').message).toBe('--round-timeout must be more than 0 (got "0")');
    expect(refusalOf('0s').message).toMatch(/must be more than 0/);
    expect(refusalOf('0h0m').message).toMatch(/must be more than 0/);
  });

  it('refuses a negative', () => {
    expect(refusalOf('-5s').message).toBe('--max-time must be more than 0 (got "-5s")');
    expect(refusalOf('-90').message).toMatch(/must be more than 0/);
    expect(refusalOf('- 90').message).toBe('--max-time must be more than 0 (got "- 90")');
    expect(refusalOf('- 1h 30m').message).toBe('--max-time must be more than 0 (got "- 1h 30m")');
  });

  it.each(['', '   ', '-', '1.5', '1h30', '30m1h', '1m1m', '1 h', 'h', '1w', '1e3s', '+5s', '5s;'])(
    'refuses %j as not a duration',
    (text) => {
      expect(refusalOf(text).message).toBe(
        `--max-time must be a duration such as 90s, 30m or 2h (got ${JSON.stringify(text)})`,
      );
    },
  );

  it('refuses a fraction of a millisecond', () => {
    expect(refusalOf('1.0005s').message).toBe(
      '--max-time must be a whole number of milliseconds (got "1.0005s")',
    );
  });

  it("refuses more than setTimeout's maximum, saying what the maximum is", () => {
    expect(refusalOf('30d').message).toBe('--max-time must be at most 24d 20h 31m 23s 647ms (got "30d")');
    expect(refusalOf(`${MAX_DURATION_MS + 1}ms`).message).toMatch(/must be at most/);
    expect(refusalOf('9'.repeat(400)).message).toMatch(/must be at most/);
  });
});

describe('a duration is shown exactly, its non-zero parts longest first', () => {
  it.each([
    [0, '0ms'],
    [1, '1ms'],
    [1_500, '1s 500ms'],
    [90_000, '1m 30s'],
    [1_800_000, '30m'],
    [5_400_000, '1h 30m'],
    [86_400_000, '1d'],
    [MAX_DURATION_MS, '24d 20h 31m 23s 647ms'],
    [1_499.6, '1s 500ms'],
    [-90_000, '-1m 30s'],
  ])('shows %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('refuses NaN and the infinities', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
    expect(() => formatDuration(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatDuration(Number.NaN)).toThrow(
      'a duration must be a finite number of milliseconds (got NaN)',
    );
    expect(() => formatDuration(Number.NEGATIVE_INFINITY)).toThrow(
      'a duration must be a finite number of milliseconds (got -Infinity)',
    );
  });
});

const validMs = fc.integer({ min: 1, max: MAX_DURATION_MS });
const flag = fc.constantFrom('--max-time', '--round-timeout', 'roundTimeoutMs');

describe('duration properties', () => {
  test('every duration a flag takes reads back from how it is shown', () => {
    fc.assert(
      fc.property(validMs, (ms) => {
        expect(parseDuration(formatDuration(ms), '--max-time')).toBe(ms);
      }),
    );
  });

  test('the shown form reads back in any letter case and without its spaces', () => {
    fc.assert(
      fc.property(validMs, fc.boolean(), (ms, upper) => {
        const text = formatDuration(ms).replaceAll(' ', '');
        expect(parseDuration(upper ? text.toUpperCase() : text, '--max-time')).toBe(ms);
      }),
    );
  });

  test('a sum of parts, longest unit first, is the sum of their milliseconds', () => {
    // At most 20 days and 30 of each shorter unit: under the maximum whatever the mix.
    const part = (unit: string, length: number) =>
      fc.option(
        fc
          .integer({ min: 0, max: unit === 'd' ? 20 : 30 })
          .map((n) => ({ text: `${n}${unit}`, ms: n * length })),
      );
    fc.assert(
      fc.property(
        fc.tuple(
          part('d', 86_400_000),
          part('h', 3_600_000),
          part('m', 60_000),
          part('s', 1_000),
          part('ms', 1),
        ),
        (parts) => {
          const present = parts.filter((p) => p !== null);
          fc.pre(present.length > 0);
          const ms = present.reduce((sum, p) => sum + p.ms, 0);
          const text = present.map((p) => p.text).join('');
          if (ms === 0) expect(refusalOf(text).message).toMatch(/more than 0/);
          else expect(parseDuration(text, '--max-time')).toBe(ms);
        },
      ),
    );
  });

  test('a bare integer is that many seconds, up to the maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Math.floor(MAX_DURATION_MS / 1000) }), (n) => {
        expect(parseDuration(String(n), '--max-time')).toBe(n * 1_000);
      }),
    );
  });

  test('whatever it accepts is a whole number of ms from 1 to the maximum; all else is refused naming the flag', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.stringMatching(/^-?\d{1,12}(\.\d{1,4})?(ms|s|m|h|d)?$/),
    );
    fc.assert(
      fc.property(text, flag, (input, name) => {
        let ms: number;
        try {
          ms = parseDuration(input, name);
        } catch (error) {
          expect(error).toBeInstanceOf(RalphError);
          expect((error as RalphError).message.startsWith(`${name} must `)).toBe(true);
          return;
        }
        expect(Number.isSafeInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(1);
        expect(ms).toBeLessThanOrEqual(MAX_DURATION_MS);
      }),
    );
  });
});
