import { describe, expect, test } from 'vitest';
import { MAX_DURATION_MS } from '../../src/contract/duration.js';
import {
  LIMIT_BACKOFF_MAX_MS,
  LIMIT_BACKOFF_MS,
  LIMIT_MARGIN_MS,
  limitWaitMs,
} from '../../src/machines/limit-wait.js';

describe('how long a run waits out a usage limit', () => {
  test('a limit with a reset time is waited out until the reset, plus the margin', () => {
    expect(LIMIT_MARGIN_MS).toBe(1_000);
    expect(limitWaitMs({ detail: 'limit', retryInMs: 5_000 }, 1)).toBe(6_000);
    expect(limitWaitMs({ detail: 'limit', retryInMs: 0 }, 3)).toBe(1_000);
  });

  test('a limit with no reset time waits one minute, doubling with each wait in a row, up to 30 minutes', () => {
    const noReset = { detail: 'limit', retryInMs: null };
    expect(LIMIT_BACKOFF_MS).toBe(60_000);
    expect(LIMIT_BACKOFF_MAX_MS).toBe(1_800_000);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 20].map((waits) => limitWaitMs(noReset, waits))).toEqual([
      60_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
  });

  test('no wait is longer than the longest duration a timer can take', () => {
    expect(limitWaitMs({ detail: 'limit', retryInMs: MAX_DURATION_MS }, 1)).toBe(MAX_DURATION_MS);
  });
});
