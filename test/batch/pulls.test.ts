import { describe, expect, it } from 'vitest';
import { issueOfTask, pullOutcomeOf } from '../../src/batch/pulls.js';

describe('pullOutcomeOf', () => {
  it('counts only a landed task as passed', () => {
    expect(pullOutcomeOf('landed', null)).toBe('passed');
    expect(pullOutcomeOf('needs-review', 'verify failed')).toBe('needs-review');
    expect(pullOutcomeOf('failed', 'budget-limited: 5 rounds')).toBe('budget-limited');
    expect(pullOutcomeOf('failed', 'the agent crashed')).toBe('failed');
    expect(pullOutcomeOf('skipped', 'a task it comes after failed')).toBe('blocked');
  });
  it('tells nothing of a task that has not settled', () => {
    for (const status of ['waiting', 'running', 'queued', 'cancelled'])
      expect(pullOutcomeOf(status, null)).toBeNull();
  });
});

describe('issueOfTask', () => {
  it('reads the issue number of a task from --from-github', () => {
    expect(issueOfTask('gh-42')).toBe(42);
    expect(issueOfTask('task-42')).toBeNull();
    expect(issueOfTask('gh-4x')).toBeNull();
  });
});
