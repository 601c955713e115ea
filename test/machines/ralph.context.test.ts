import { describe, expect, test } from 'vitest';
import { reviewReport } from '../../src/contract/round-report-review.js';
import {
  agentOf,
  handoffOf,
  initialContext,
  limitOf,
  railOf,
  reviewAs,
  spentUsdOf,
  verifyOf,
} from '../../src/machines/ralph.context.js';
import { baseInput, report } from './run-harness.js';

// What the chart's actions read is there on every path its guards let through; reading it where it is not is a
// fault of the machine itself, which stops the run with an error that says what was missing (never a child's fault,
// never a TypeError from deep inside an action).

const context = () => initialContext({ input: baseInput({ agent: null }) });

describe('a machine fault says what the machine read that was not there', () => {
  test('the calling agent, the verify command, a guard rail that is off, a limit, the handoff', () => {
    expect(() => agentOf(context())).toThrow(
      new Error('ralphMachine: an accepted call has no calling agent'),
    );
    expect(() => verifyOf(context())).toThrow(
      new Error('ralphMachine: a run without a verify command is verifying'),
    );
    expect(() => railOf(context(), 'maxWallTimeMs')).toThrow(
      new Error('ralphMachine: the maxWallTimeMs guard rail is off'),
    );
    expect(() => limitOf({ output: null, usage: null })).toThrow(
      new Error('ralphMachine: a round that hit no limit is treated as one'),
    );
    expect(() => handoffOf(context())).toThrow(new Error('ralphMachine: no report was accepted yet'));
  });

  test('a review read as a verdict it does not have names both', () => {
    expect(() => reviewAs(null, 'accepted')).toThrow(
      new Error('ralphMachine: expected a accepted review, found none'),
    );
    const missing = reviewReport(undefined, 20_000);
    expect(() => reviewAs(missing, 'accepted')).toThrow(
      new Error('ralphMachine: expected a accepted review, found missing'),
    );
    const accepted = reviewReport(report('continue'), 20_000);
    expect(reviewAs(accepted, 'accepted')).toBe(accepted);
  });
});

test('a run whose rounds said nothing of their cost has spent nothing', () => {
  expect(spentUsdOf(context())).toBe(0);
  expect(spentUsdOf({ ...context(), usage: { inputTokens: 10 } })).toBe(0);
  expect(spentUsdOf({ ...context(), usage: { costUsd: 0.25 } })).toBe(0.25);
});
