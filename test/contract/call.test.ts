import { describe, expect, it } from 'vitest';
import { MAX_OBJECTIVE_CHARS, objectiveTooLong } from '../../src/contract/call.js';

describe('an objective past the cap is refused, saying how long it is and how long it may be', () => {
  it('names its length and the cap of 1 MiB of characters', () => {
    expect(MAX_OBJECTIVE_CHARS).toBe(1_048_576);
    expect(objectiveTooLong(2_000_000)).toBe(
      'Ralph objective is 2000000 characters long; at most 1048576 are accepted',
    );
  });
});
