import { describe, expect, it } from 'vitest';
import { checkReport } from '../../src/contract/round-report.js';

const report = { status: 'continue', summary: 'did part of it', evidence: [], nextSteps: ['do the rest'] };

describe("a report's blocker field", () => {
  it('left out, tells the child that null is the way to say there is none', () => {
    expect(checkReport(report)).toEqual({
      ok: false,
      problem: 'blocker: required; use null when there is no blocker',
    });
  });

  it('of the wrong type, says what type it must be', () => {
    expect(checkReport({ ...report, blocker: 5 })).toEqual({
      ok: false,
      problem: 'blocker: Invalid input: expected string, received number',
    });
  });
});
