import { expect, test } from 'vitest';
import { baseInput, report, startRun } from './run-harness.js';

// The chart's own wiring, seen from outside: what a run with no guard rail given does, and what it counts.

test('a run given no guard rails completes on a complete report, verifying nothing', async () => {
  const input = baseInput();
  delete input.guardRails;
  const run = startRun(input, { rounds: [{ output: report('complete') }] });
  expect(await run.outcome()).toEqual({
    ok: true,
    envelope: {
      runId: 'run-1',
      agentsStarted: 1,
      result: { status: 'complete', rounds: 1, report: report('complete') },
    },
  });
  expect(run.events.map((event) => event.type)).toEqual([
    'round-started',
    'child-started',
    'report-accepted',
  ]);
});

test('what a failed round’s agent said it used counts in the run’s usage, though no report came', async () => {
  const failure = Object.assign(new Error('the child crashed'), { usage: { costUsd: 0.5, turns: 3 } });
  const run = startRun(baseInput(), {
    rounds: [{ output: report('continue'), usage: { costUsd: 0.25 } }, { fails: failure }],
  });
  const output = await run.outcome();
  expect(output.ok ? '' : output.failure.code).toBe('child-failed');
  expect(run.actor.getSnapshot().context.usage).toEqual({ costUsd: 0.75, turns: 3 });
});
