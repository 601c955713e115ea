import { describe, expect, test } from 'vitest';
import { renderEvaluatorPrompt } from '../../src/contract/evaluator-prompt.js';
import { verdictJsonSchema } from '../../src/contract/evaluator-verdict.js';
import { reviewReport } from '../../src/contract/round-report-review.js';
import {
  agentOf,
  contextWith,
  evaluationOf,
  evaluatorOf,
  evaluatorRequestOf,
  handoffOf,
  initialContext,
  limitOf,
  railOf,
  reviewAs,
  settled,
  spentUsdOf,
  verifyOf,
} from '../../src/machines/ralph.context.js';
import { baseInput, evaluatorSnapshot, report } from './run-harness.js';

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

describe('the context of a run with an evaluator, and of one without', () => {
  const withEvaluator = () => initialContext({ input: baseInput({ evaluator: evaluatorSnapshot() }) });

  test("a run without an evaluator has neither key, not even an undefined one: its context is the reference run's", () => {
    const reference = initialContext({ input: baseInput() });
    expect(Object.keys(reference)).not.toContain('evaluation');
    expect(Object.keys(reference.call)).not.toContain('evaluator');
    expect(() => evaluatorOf(reference)).toThrow(
      new Error('ralphMachine: a run without an evaluator is evaluating'),
    );
    expect(() => evaluationOf(reference)).toThrow(
      new Error('ralphMachine: a run without an evaluator has no evaluations'),
    );
  });

  test('a run with one starts with no evaluation started, no review, nothing changed and no verdict', () => {
    const context = withEvaluator();
    expect(context.call.evaluator).toEqual(evaluatorSnapshot());
    expect(evaluationOf(context)).toEqual({ started: 0, review: null, changedFiles: [], last: null });
  });

  test("an evaluator is asked with the objective and the round's report alone, its own copy of the verdict schema", () => {
    const completed = report('complete');
    const context = {
      ...withEvaluator(),
      objective: 'Make the tests pass',
      maxRounds: 3,
      round: 2,
      handoff: completed,
    };
    const request = evaluatorRequestOf({ context });
    expect(request).toEqual({
      runId: 'run-1',
      round: 2,
      maxRounds: 3,
      objective: 'Make the tests pass',
      handoff: completed,
      prompt: renderEvaluatorPrompt({ objective: 'Make the tests pass', round: 2, report: completed }),
      outputSchema: verdictJsonSchema,
      cwd: '/workspace',
      parent: { id: 'caller', cwd: '/workspace' },
      maxHandoffChars: 20_000,
      role: 'evaluator',
    });
    expect(request.outputSchema).not.toBe(verdictJsonSchema);
    expect(evaluatorRequestOf({ context }).outputSchema).not.toBe(request.outputSchema);
  });

  test('an envelope carries the evaluation only once a verdict was given', () => {
    const completed = report('complete');
    const context = { ...withEvaluator(), round: 1, agentsStarted: 1, handoff: completed };
    const before = settled(context, 'complete').outcome;
    expect(before.ok && Object.keys(before.envelope.result)).toEqual(['status', 'rounds', 'report']);
    const verdict = { verdict: 'accept' as const, findings: [], evidence: ['ran it'] };
    const judged = {
      ...context,
      evaluation: { started: 1, review: null, changedFiles: [], last: { round: 1, verdict } },
    };
    const after = settled(judged, 'complete').outcome;
    expect(after.ok && after.envelope.result.evaluation).toEqual({
      evaluator: 'judge',
      round: 1,
      verdict: 'accept',
      findings: [],
      evidence: ['ran it'],
      evaluatorsStarted: 1,
    });
    // A copy: the envelope does not share the context's arrays.
    expect(after.ok && after.envelope.result.evaluation?.evidence).not.toBe(verdict.evidence);
  });
});

describe('contextWith', () => {
  test('gives what a spread gives, key for key and in the same order, with an evaluator or without', () => {
    const plain = initialContext({ input: baseInput() });
    const judged = initialContext({ input: baseInput({ evaluator: evaluatorSnapshot() }) });
    const evaluation = { started: 2, review: null, changedFiles: [], last: null };
    const updates = [
      {},
      { round: 3, childId: 'c', review: null },
      { outOfTime: true, limitWaitMs: 5 },
      { evaluation },
    ];
    for (const context of [plain, judged])
      for (const update of updates) {
        const next = contextWith(context, update);
        const spread = { ...context, ...update };
        expect(next).toEqual(spread);
        expect(Object.keys(next)).toEqual(Object.keys(spread));
        expect(next).not.toBe(context);
      }
  });
});
