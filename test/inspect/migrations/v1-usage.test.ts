import { describe, expect, it } from 'vitest';
import { V1_USAGE_STEP } from '../../../src/inspect/migrations/v1-usage.js';

describe('the usage step (v1 before usage → v1 with usage)', () => {
  it("wraps each round's report as {output, usage: null} and leaves every other line as it was", () => {
    const report = { status: 'continue', summary: 's', evidence: [], nextSteps: ['n'], blocker: null };
    const done = { type: '@xstate.event', event: { type: 'xstate.done.actor.awaitReport', output: report } };
    const started = {
      type: '@xstate.event',
      event: { type: 'xstate.done.actor.startChild', output: { childId: 'c' } },
    };
    const snapshot = { type: '@xstate.snapshot', event: { type: 'xstate.done.actor.awaitReport' } };
    const recording = {
      header: { formatVersion: 1 },
      lines: [
        { number: 2, line: started },
        { number: 3, line: done },
        { number: 4, line: snapshot },
      ],
    };
    const migrated = V1_USAGE_STEP.migrate(recording);
    expect(migrated.lines).toEqual([
      { number: 2, line: started },
      {
        number: 3,
        line: {
          type: '@xstate.event',
          event: { type: 'xstate.done.actor.awaitReport', output: { output: report, usage: null } },
        },
      },
      { number: 4, line: snapshot },
    ]);
    expect(done.event.output).toBe(report);
  });
});
