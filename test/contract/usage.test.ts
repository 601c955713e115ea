import { describe, expect, it } from 'vitest';
import {
  addUsage,
  costText,
  sumUsd,
  usageOf,
  usageOfFailure,
  usageSuffix,
  usageText,
} from '../../src/contract/usage.js';

describe('a round usage is read from what an agent wrote, never trusted', () => {
  it('keeps the known fields that are finite non-negative numbers and drops everything else', () => {
    expect(
      usageOf({ costUsd: 0.5, inputTokens: 10, outputTokens: -1, turns: '3', durationMs: Number.NaN, x: 1 }),
    ).toEqual({ costUsd: 0.5, inputTokens: 10 });
  });

  it('is null when nothing usable is there', () => {
    for (const value of [null, undefined, 3, 'text', [], {}, { costUsd: -2 }])
      expect(usageOf(value)).toBeNull();
    for (const amount of [-1, Number.NaN, Number.POSITIVE_INFINITY, -0.5])
      expect(usageOf({ inputTokens: amount })).toBeNull();
  });

  it('zero is an amount: a round that cost nothing or took no turn says so', () => {
    expect(usageOf({ costUsd: 0, turns: 0 })).toEqual({ costUsd: 0, turns: 0 });
  });

  it('only the cost is kept to the micro-dollar; the other amounts are kept as written', () => {
    expect(usageOf({ costUsd: 1.0000004, durationMs: 1.0000004 })).toEqual({
      costUsd: 1,
      durationMs: 1.0000004,
    });
  });
});

describe("a failed round's usage is what its error carries", () => {
  it('reads the usage an error carries', () => {
    const error = Object.assign(new Error('child failed'), { usage: { costUsd: 0.25, turns: 2 } });
    expect(usageOfFailure(error)).toEqual({ costUsd: 0.25, turns: 2 });
  });

  it('is null for an error without a usage, and for anything that is no object', () => {
    for (const error of [new Error('child failed'), { usage: 'lots' }, null, undefined, 'failed', 42])
      expect(usageOfFailure(error)).toBeNull();
  });
});

describe('usages add up field by field', () => {
  it('a field either side has is in the sum; one neither has is not', () => {
    expect(addUsage({ costUsd: 0.25, inputTokens: 100 }, { inputTokens: 50, turns: 2 })).toEqual({
      costUsd: 0.25,
      inputTokens: 150,
      turns: 2,
    });
  });

  it('null is nothing: the sum of nothing is null', () => {
    expect(addUsage(null, null)).toBeNull();
    expect(addUsage(null, { turns: 1 })).toEqual({ turns: 1 });
    expect(addUsage({ turns: 1 }, null)).toEqual({ turns: 1 });
  });

  it('only the cost is summed to the micro-dollar; the other amounts add as they are', () => {
    const sum = addUsage({ costUsd: 1.0000004, durationMs: 1.0000004 }, { costUsd: 1, durationMs: 1 });
    expect(sum?.costUsd).toBe(2);
    expect(sum?.durationMs).toBeCloseTo(2.0000004, 10);
  });
});

describe('a usage in a few words', () => {
  it('shows the cost, the tokens in and out and the turns', () => {
    expect(
      usageText({ costUsd: 0.0123, inputTokens: 1200, outputTokens: 340, turns: 3, durationMs: 5 }),
    ).toBe('$0.0123 · 1,200 in / 340 out tokens · 3 turns');
    expect(usageText({ turns: 1 })).toBe('1 turn');
    expect(costText(12.345)).toBe('$12.35');
    expect(costText(0.05)).toBe('$0.05');
    expect(costText(0.000135)).toBe('$0.000135');
    expect(costText(0)).toBe('$0.00');
  });

  it('shows dollars to the cent, below a dollar to a hundredth of a cent, below a cent to a millionth', () => {
    expect(costText(1)).toBe('$1.00');
    expect(costText(0.0123456)).toBe('$0.0123');
    expect(costText(0.01)).toBe('$0.01');
    expect(costText(0.00123456)).toBe('$0.001235');
  });

  it('drops the zeros after the cents but keeps the cents', () => {
    expect(costText(0.012)).toBe('$0.012');
    expect(costText(0.0001)).toBe('$0.0001');
    expect(costText(0.5)).toBe('$0.50');
  });

  it('a progress line gets the round and the run total, or nothing when nothing is known', () => {
    expect(usageSuffix({ costUsd: 0.25 }, { costUsd: 0.5 })).toBe(' [$0.25; run total $0.50]');
    expect(usageSuffix(undefined, { costUsd: 0.5 })).toBe(' [run total $0.50]');
    expect(usageSuffix({ costUsd: 0.25 }, undefined)).toBe(' [$0.25]');
    expect(usageSuffix({ costUsd: 0.25 }, { durationMs: 3 })).toBe(' [$0.25]');
    expect(usageSuffix(undefined, undefined)).toBe('');
    expect(usageSuffix({ durationMs: 3 }, { durationMs: 3 })).toBe('');
  });
});

describe('money carries no float noise: it is summed exactly, to the micro-dollar', () => {
  it('$0.40 three times is $1.20, not 1.2000000000000002; $0.10 and $0.20 are $0.30', () => {
    let total = addUsage(null, { costUsd: 0.4 });
    total = addUsage(total, { costUsd: 0.4 });
    total = addUsage(total, { costUsd: 0.4 });
    expect(total).toEqual({ costUsd: 1.2 });
    expect(addUsage({ costUsd: 0.1 }, { costUsd: 0.2 })).toEqual({ costUsd: 0.3 });
    expect(sumUsd(0.4, 0.4, 0.4, 0.4, 0.4)).toBe(2);
    expect(sumUsd()).toBe(0);
  });

  it('an amount an agent wrote is kept to the micro-dollar', () => {
    expect(usageOf({ costUsd: 0.1234567891 })).toEqual({ costUsd: 0.123457 });
    expect(usageOf({ costUsd: 0.1 + 0.2 })).toEqual({ costUsd: 0.3 });
  });
});
