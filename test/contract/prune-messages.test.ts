import { describe, expect, it } from 'vitest';
import { prunedLine, pruneSummary } from '../../src/contract/prune-messages.js';

describe("ralph prune's texts", () => {
  it('names each run and batch pruned, or that would be', () => {
    expect(prunedLine('run', 'r-1', 1, false)).toBe('pruned run r-1');
    expect(prunedLine('run', 'r-1', 1, true)).toBe('would prune run r-1');
    expect(prunedLine('batch', 'b', 3, false)).toBe(
      "pruned batch b (3 workflows: its tasks' runs and landings)",
    );
    expect(prunedLine('batch', 'b', 1, true)).toBe(
      "would prune batch b (1 workflow: its tasks' runs and landings)",
    );
  });

  it('sums them up, counted in words, with the age as a duration', () => {
    const day = 86_400_000;
    expect(pruneSummary(0, 0, 30 * day, false)).toBe(
      'ralph prune: no run or batch ended more than 30d ago; nothing pruned',
    );
    expect(pruneSummary(1, 0, 90 * 60_000, false)).toBe(
      'ralph prune: pruned 1 run that ended more than 1h 30m ago; runs that have not ended are kept',
    );
    expect(pruneSummary(0, 2, day, false)).toBe(
      'ralph prune: pruned 2 batches that ended more than 1d ago; runs that have not ended are kept',
    );
    expect(pruneSummary(3, 1, day, true)).toBe(
      'ralph prune: would prune 3 runs and 1 batch that ended more than 1d ago (--dry-run: nothing was deleted)',
    );
  });
});
