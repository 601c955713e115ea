import { describe, expect, test } from 'vitest';
import { baseInput, eventsOf, railsOff, report, startRun } from './run-harness.js';

// The run machine's guards, actions and delays, seen from outside: what a run does, emits and settles with.

describe('waiting out usage limits', () => {
  const noReset = { detail: 'usage limit reached', retryInMs: null };

  test('each wait in a row for a limit with no reset time is twice the one before', async () => {
    const run = startRun(baseInput({ guardRails: { ...railsOff(), waitOnLimits: true } }), {
      rounds: [{ limit: noReset }, { limit: noReset }, { output: report('complete') }],
    });
    await run.reaches('running.waitingForLimit');
    run.clock.increment(60_000);
    await run.reaches('running.waitingForLimit');
    run.clock.increment(120_000);
    const output = await run.outcome();
    expect(eventsOf(run.events, 'limit-wait-started').map((event) => [event.round, event.waitMs])).toEqual([
      [1, 60_000],
      [1, 120_000],
    ]);
    expect(output).toMatchObject({ ok: true, envelope: { agentsStarted: 3, result: { rounds: 1 } } });
  });
});

describe('the failures a run settles with', () => {
  test('a report over the handoff cap fails the workflow with no detail beside its message', async () => {
    const run = startRun(baseInput({ maxHandoffChars: 300 }), {
      rounds: [{ output: report('continue', 'x'.repeat(400)) }],
    });
    const output = await run.outcome();
    if (output.ok) throw new Error('an oversized report was accepted');
    expect(output.failure.code).toBe('workflow-failed');
    expect(Object.keys(output.failure).sort()).toEqual(['code', 'lastHandoff', 'message', 'round']);
  });

  test('an actor the engine did not provide fails the run, naming the actor', async () => {
    const unprovided = (name: string) =>
      `ralphMachine actor "${name}" was not provided; run the machine through createRalphEngine`;
    const verify = { argv: ['npm', 'test'], timeoutMs: 1_000, maxOutputChars: 1_000 };
    const verifying = startRun(
      baseInput({ guardRails: { ...railsOff(), verify } }),
      { rounds: [{ output: report('complete') }] },
      ['runVerify'],
    );
    const verified = await verifying.outcome();
    expect(verified.ok ? '' : verified.failure.message).toContain(unprovided('runVerify'));
    const idle = startRun(baseInput({ guardRails: { ...railsOff(), maxIdleRounds: 2 } }), {}, [
      'fingerprintWorkspace',
    ]);
    const fingerprinted = await idle.outcome();
    expect(fingerprinted.ok ? '' : fingerprinted.failure.message).toContain(
      unprovided('fingerprintWorkspace'),
    );
  });
});

describe('the report-accepted event', () => {
  test("a round whose agent said nothing of its usage is announced with the reference's fields only", async () => {
    const run = startRun(baseInput(), { rounds: [{ output: report('complete') }] });
    await run.outcome();
    const [accepted] = eventsOf(run.events, 'report-accepted');
    expect(Object.keys(accepted ?? {})).toEqual(['type', 'runId', 'round', 'maxRounds', 'report']);
  });

  test('a round whose agent said its usage is announced with it and the run total so far', async () => {
    const run = startRun(baseInput(), {
      rounds: [
        { output: report('continue'), usage: { costUsd: 0.25 } },
        { output: report('complete'), usage: { costUsd: 0.5 } },
      ],
    });
    await run.outcome();
    const announced = eventsOf(run.events, 'report-accepted').map(({ usage, totalUsage }) => ({
      usage,
      totalUsage,
    }));
    expect(announced).toEqual([
      { usage: { costUsd: 0.25 }, totalUsage: { costUsd: 0.25 } },
      { usage: { costUsd: 0.5 }, totalUsage: { costUsd: 0.75 } },
    ]);
  });
});

describe('the cost budget', () => {
  const budget = (maxCostUsd: number) => ({ ...railsOff(), maxCostUsd });

  test('a run goes on while its rounds cost less than the budget, and one that said no cost spent nothing', async () => {
    const run = startRun(baseInput({ guardRails: budget(1) }), {
      rounds: [
        { output: report('continue') },
        { output: report('continue'), usage: { costUsd: 0.5 } },
        { output: report('complete'), usage: { costUsd: 0.25 } },
      ],
    });
    expect(await run.outcome()).toMatchObject({
      ok: true,
      envelope: { result: { status: 'complete', rounds: 3 } },
    });
  });

  test('a resumed run that spends its budget names the rounds whose spend it could not count', async () => {
    const resume = {
      round: 1,
      handoff: report('continue'),
      agentsStarted: 2,
      usage: { costUsd: 0.75 },
      uncountedRounds: [2],
    };
    const run = startRun(baseInput({ guardRails: budget(1), resume }), {
      rounds: [{ output: report('continue'), usage: { costUsd: 0.5 } }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(output.envelope.result.limit).toEqual({
      kind: 'cost',
      maxCostUsd: 1,
      spentUsd: 1.25,
      uncountedRounds: [2],
    });
  });

  test('a run that was never resumed names no uncounted rounds when it spends its budget', async () => {
    const run = startRun(baseInput({ guardRails: budget(1) }), {
      rounds: [{ output: report('continue'), usage: { costUsd: 2 } }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(output.envelope.result.limit).toEqual({ kind: 'cost', maxCostUsd: 1, spentUsd: 2 });
  });
});

describe('the wall clock', () => {
  test('a run taken up again has only what its time budget has left', async () => {
    const guardRails = { ...railsOff(), maxWallTimeMs: 10_000, spentWallTimeMs: 9_000 };
    const run = startRun(baseInput({ guardRails }), { rounds: ['hangs'] });
    await run.reaches('running.round.awaitingReport');
    run.clock.increment(999);
    expect(eventsOf(run.events, 'time-limit-reached')).toEqual([]);
    run.clock.increment(1);
    const output = await run.outcome();
    expect(eventsOf(run.events, 'time-limit-reached')).toEqual([
      { type: 'time-limit-reached', runId: 'run-1', round: 1, maxRounds: 3, maxWallTimeMs: 10_000 },
    ]);
    expect(output.ok).toBe(false);
  });

  test('a run with a time budget and none spent before runs out once the whole budget has passed', async () => {
    const guardRails = { ...railsOff(), maxWallTimeMs: 10_000 };
    const run = startRun(baseInput({ guardRails }), { rounds: [{ output: report('continue') }, 'hangs'] });
    await run.reaches('running.round.awaitingReport');
    run.clock.increment(9_999);
    expect(eventsOf(run.events, 'time-limit-reached')).toEqual([]);
    run.clock.increment(1);
    const output = await run.outcome();
    expect(output).toMatchObject({
      ok: true,
      envelope: {
        result: { status: 'budget-limited', rounds: 2, limit: { kind: 'time', unfinishedRound: 2 } },
      },
    });
  });
});

describe('the idle watch', () => {
  const idle = (maxIdleRounds: number) => baseInput({ guardRails: { ...railsOff(), maxIdleRounds } });
  const work = (n: number) => Array.from({ length: n }, () => ({ output: report('continue') }));

  test('that many rounds in a row that leave the workspace as it was end the run budget-limited', async () => {
    const run = startRun(idle(2), { rounds: work(2), fingerprints: ['a', 'a', 'a'] });
    const output = await run.outcome();
    expect(
      eventsOf(run.events, 'workspace-unchanged').map((event) => [event.round, event.idleRounds]),
    ).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(output).toMatchObject({
      ok: true,
      envelope: {
        result: { status: 'budget-limited', rounds: 2, limit: { kind: 'idle', maxIdleRounds: 2 } },
      },
    });
  });

  test('a round that changes the workspace starts the count again', async () => {
    const run = startRun(idle(2), {
      rounds: [...work(2), { output: report('complete') }],
      fingerprints: ['a', 'a', 'b'],
    });
    const output = await run.outcome();
    expect(eventsOf(run.events, 'workspace-unchanged').map((event) => event.idleRounds)).toEqual([1]);
    expect(output).toMatchObject({ ok: true, envelope: { result: { status: 'complete', rounds: 3 } } });
  });
});
