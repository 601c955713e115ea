import { describe, expect, test } from 'vitest';
import { type AnyActorRef, waitFor } from 'xstate';
import type { RalphMachineInput } from '../../src/machines/ralph.machine.js';
import { baseInput, evaluatorSnapshot, eventsOf, railsOff, report, startRun } from './run-harness.js';

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

describe('the independent evaluator', () => {
  const evaluated = (overrides: Partial<RalphMachineInput> = {}) =>
    baseInput({ evaluator: evaluatorSnapshot(), ...overrides });
  const accept = { verdict: 'accept', findings: [], evidence: ['npm test passed'] };
  const reject = { verdict: 'reject', findings: ['add.js is missing'], evidence: [] };
  const verify = { argv: ['npm', 'test'], timeoutMs: 1_000, maxOutputChars: 1_000 };
  const passed = { exitCode: 0, signal: null, timedOut: false, durationMs: 10, outputTail: 'ok' };

  test('an accepted completion settles complete with the verdict after the reference fields, and no verifiedBy without a verify command', async () => {
    const run = startRun(evaluated(), {
      rounds: [{ output: report('complete') }],
      verdicts: [{ output: accept }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(Object.keys(output.envelope.result)).toEqual(['status', 'rounds', 'report', 'evaluation']);
    expect(output.envelope.result.evaluation).toEqual({
      evaluator: 'judge',
      round: 1,
      verdict: 'accept',
      findings: [],
      evidence: ['npm test passed'],
      evaluatorsStarted: 1,
    });
  });

  test('with a verify command, the evaluator checks only after it passed, and the envelope names both', async () => {
    const run = startRun(evaluated({ guardRails: { ...railsOff(), verify } }), {
      rounds: [{ output: report('complete') }],
      verifies: [passed],
      verdicts: [{ output: accept }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(Object.keys(output.envelope.result)).toEqual([
      'status',
      'rounds',
      'report',
      'verifiedBy',
      'evaluation',
    ]);
    expect(output.envelope.result.verifiedBy).toEqual(['npm', 'test']);
    expect(run.events.map((event) => event.type)).toEqual([
      'round-started',
      'child-started',
      'report-accepted',
      'verify-started',
      'verify-finished',
      'evaluator-started',
      'evaluator-finished',
    ]);
  });

  test('each evaluation starts with a fresh review and keeps the last verdict given, and the round it judged', async () => {
    const run = startRun(evaluated(), {
      rounds: [{ output: report('complete') }, { output: report('complete') }],
      verdicts: [{ output: reject }, 'hangs'],
    });
    const second = await waitFor(
      run.actor as AnyActorRef,
      (snapshot) => snapshot.matches('running.evaluating.awaitingVerdict') && snapshot.context.round === 2,
    );
    expect(second.context.evaluation).toEqual({
      started: 2,
      review: null,
      changedFiles: [],
      last: { round: 1, verdict: reject },
    });
    // The completion being judged is the second round's own report.
    expect(second.context.handoff).toMatchObject({ status: 'complete' });
    run.actor.stop();
  });

  test('a rejection at the round cap ends the run budget-limited with the report, the findings and the rejection', async () => {
    const run = startRun(evaluated({ args: { objective: 'Make the tests pass', maxRounds: 1 } }), {
      rounds: [{ output: report('complete') }],
      verdicts: [{ output: reject }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(output.envelope.result).toMatchObject({
      status: 'budget-limited',
      rounds: 1,
      report: {
        status: 'continue',
        summary: 'complete round',
        nextSteps: [
          'An independent evaluator checked the workspace and rejected the reported completion; address its findings:',
          'Evaluator finding: add.js is missing',
        ],
        blocker: null,
      },
      evaluation: { verdict: 'reject', round: 1, findings: ['add.js is missing'], evaluatorsStarted: 1 },
    });
  });

  test("what an evaluator said it spent counts toward the cost budget, not as the round's usage", async () => {
    const run = startRun(evaluated({ guardRails: { ...railsOff(), maxCostUsd: 1 } }), {
      rounds: [{ output: report('complete'), usage: { costUsd: 0.5 } }],
      verdicts: [{ output: reject, usage: { costUsd: 0.75 } }],
    });
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(output.envelope.result.limit).toEqual({ kind: 'cost', maxCostUsd: 1, spentUsd: 1.25 });
    expect(eventsOf(run.events, 'report-accepted').map((event) => event.usage)).toEqual([{ costUsd: 0.5 }]);
  });

  test('an evaluator that failed before its verdict still counts what it said it spent', async () => {
    const run = startRun(evaluated(), {
      rounds: [{ output: report('complete'), usage: { costUsd: 0.5 } }],
      verdicts: [{ fails: Object.assign(new Error('evaluator crashed'), { usage: { costUsd: 0.25 } }) }],
    });
    const output = await run.outcome();
    expect(output).toMatchObject({
      ok: false,
      failure: {
        code: 'workflow-failed',
        message:
          'Ralph workflow failed: the evaluator of round 1 failed before it gave a verdict: evaluator crashed',
      },
    });
    expect(run.actor.getSnapshot().context.usage).toEqual({ costUsd: 0.75 });
  });

  test('an evaluator that changed the workspace fails the run whatever it answered, naming the files', async () => {
    const run = startRun(evaluated(), {
      rounds: [{ output: report('complete') }],
      verdicts: [{ output: { verdict: 'maybe' }, changedFiles: ['add.js (added)'] }],
    });
    const output = await run.outcome();
    expect(output.ok ? '' : output.failure.message).toBe(
      'Ralph workflow failed: the evaluator of round 1 changed the workspace, which an evaluator must not do: add.js (added)',
    );
  });

  test('the time limit stopping an evaluator ends the run budget-limited, naming the round it did not judge', async () => {
    const run = startRun(evaluated({ guardRails: { ...railsOff(), maxWallTimeMs: 10_000 } }), {
      rounds: [{ output: report('complete') }],
      verdicts: ['hangs'],
    });
    await run.reaches('running.evaluating.awaitingVerdict');
    run.clock.increment(10_000);
    const output = await run.outcome();
    if (!output.ok) throw new Error(output.failure.message);
    expect(output.envelope.result).toMatchObject({
      status: 'budget-limited',
      report: { status: 'complete' },
      limit: { kind: 'time', maxWallTimeMs: 10_000, unevaluatedRound: 1 },
    });
    expect(Object.keys(output.envelope.result)).not.toContain('evaluation');
  });

  test('the round timeout stopping an evaluator fails the workflow, naming the evaluator, not a child', async () => {
    const timed = startRun(evaluated({ guardRails: { ...railsOff(), roundTimeoutMs: 60_000 } }), {
      rounds: [{ output: report('complete') }],
      verdicts: ['hangs'],
    });
    await timed.reaches('running.evaluating.awaitingVerdict');
    timed.clock.increment(59_999);
    expect(timed.actor.getSnapshot().matches({ running: 'evaluating' })).toBe(true);
    timed.clock.increment(1);
    const output = await timed.outcome();
    expect(output).toMatchObject({
      ok: false,
      failure: {
        code: 'workflow-failed',
        detail:
          'the evaluator of round 1 timed out: it gave no verdict within the round timeout of 1m and was stopped',
      },
    });
    expect(eventsOf(timed.events, 'round-timed-out')).toHaveLength(1);
  });
});

describe("the order validating's checks speak in, with an evaluator", () => {
  const refusalOf = async (input: RalphMachineInput) => {
    const output = await startRun(input).outcome();
    return output.ok ? 'accepted' : output.failure.message;
  };
  const provider = baseInput().provider;

  test("the provider's checks and the cost check speak before the evaluator's", async () => {
    expect(
      await refusalOf(
        baseInput({
          provider: { ...provider, registered: false },
          evaluator: evaluatorSnapshot({ registered: false }),
        }),
      ),
    ).toBe('Ralph subagent provider "scripted" is not registered');
    expect(
      await refusalOf(
        baseInput({
          provider: { ...provider, reportsCost: false },
          evaluator: evaluatorSnapshot({ reportsCost: false }),
          guardRails: { ...railsOff(), maxCostUsd: 2 },
        }),
      ),
    ).toContain('subagent provider "scripted" does not report what its rounds cost');
  });

  test("the evaluator's checks, in their order, then the resume point's", async () => {
    expect(
      await refusalOf(
        baseInput({ evaluator: evaluatorSnapshot({ registered: false, structuredOutput: false }) }),
      ),
    ).toBe('Ralph evaluator provider "judge" is not registered');
    expect(
      await refusalOf(
        baseInput({ evaluator: evaluatorSnapshot({ structuredOutput: false, inheritsParentContext: true }) }),
      ),
    ).toBe('Ralph evaluator provider "judge" does not support structured output');
    expect(
      await refusalOf(
        baseInput({
          evaluator: evaluatorSnapshot({ inheritsParentContext: true, reportsCost: false }),
          guardRails: { ...railsOff(), maxCostUsd: 2 },
        }),
      ),
    ).toBe('Ralph evaluator provider "judge" inherits parent context; Ralph requires a fresh evaluator');
    expect(
      await refusalOf(
        baseInput({
          evaluator: evaluatorSnapshot({ reportsCost: false }),
          guardRails: { ...railsOff(), maxCostUsd: 2 },
          resume: { round: 9, handoff: null, agentsStarted: 0 },
        }),
      ),
    ).toBe(
      'Ralph cannot hold the cost limit: evaluator provider "judge" does not report what its evaluations cost. Use an evaluator that reports cost, or drop the cost limit.',
    );
    expect(
      await refusalOf(
        baseInput({ evaluator: evaluatorSnapshot(), resume: { round: 9, handoff: null, agentsStarted: 0 } }),
      ),
    ).toBe(
      'Ralph cannot resume the run: its finished rounds (9) must be a whole number below the round cap 3',
    );
  });

  test('an evaluator that does not report cost is no problem without a cost budget', async () => {
    const run = startRun(baseInput({ evaluator: evaluatorSnapshot({ reportsCost: false }) }), {
      rounds: [{ output: report('complete') }],
      verdicts: [{ output: { verdict: 'accept', findings: [], evidence: ['read it'] } }],
    });
    expect(await run.outcome()).toMatchObject({ ok: true, envelope: { result: { status: 'complete' } } });
  });
});

describe("the order validating's checks speak in, with a sandbox", () => {
  const refusalOf = async (input: RalphMachineInput) => {
    const output = await startRun(input).outcome();
    return output.ok ? 'accepted' : output.failure.message;
  };
  const sandbox = { network: 'none' as const, env: [], hide: [] };
  const sandboxing = { ...baseInput().provider, sandbox: true };
  const cannot = (role: string, name: string) =>
    `Ralph cannot run ${role} provider "${name}" in a sandbox: it does not start its children as processes ralph can sandbox (command agents and the agent CLI presets can). Use a command provider, or run without the sandbox.`;

  test("a provider that cannot sandbox is refused, after the provider's and the cost checks", async () => {
    expect(await refusalOf(baseInput({ sandbox }))).toBe(cannot('subagent', 'scripted'));
    expect(
      await refusalOf(
        baseInput({
          sandbox,
          provider: { ...baseInput().provider, reportsCost: false },
          guardRails: { ...railsOff(), maxCostUsd: 2 },
        }),
      ),
    ).toContain('subagent provider "scripted" does not report what its rounds cost');
  });

  test("an evaluator that cannot sandbox is refused after the evaluator's own checks and the provider's", async () => {
    expect(
      await refusalOf(baseInput({ sandbox, provider: sandboxing, evaluator: evaluatorSnapshot() })),
    ).toBe(cannot('evaluator', 'judge'));
    expect(await refusalOf(baseInput({ sandbox, evaluator: evaluatorSnapshot() }))).toBe(
      cannot('subagent', 'scripted'),
    );
    expect(
      await refusalOf(
        baseInput({
          sandbox,
          provider: sandboxing,
          evaluator: evaluatorSnapshot({ reportsCost: false }),
          guardRails: { ...railsOff(), maxCostUsd: 2 },
        }),
      ),
    ).toContain('evaluator provider "judge" does not report what its evaluations cost');
  });

  test("the sandbox's checks speak before the resume point's", async () => {
    expect(
      await refusalOf(baseInput({ sandbox, resume: { round: 9, handoff: null, agentsStarted: 0 } })),
    ).toBe(cannot('subagent', 'scripted'));
  });

  test('a run whose provider and evaluator can sandbox runs; a provider that cannot is no problem without one', async () => {
    const boxed = startRun(
      baseInput({ sandbox, provider: sandboxing, evaluator: evaluatorSnapshot({ sandbox: true }) }),
      {
        rounds: [{ output: report('complete') }],
        verdicts: [{ output: { verdict: 'accept', findings: [], evidence: ['read it'] } }],
      },
    );
    expect(await boxed.outcome()).toMatchObject({ ok: true, envelope: { result: { status: 'complete' } } });
    const plain = startRun(baseInput(), { rounds: [{ output: report('complete') }] });
    expect(await plain.outcome()).toMatchObject({ ok: true, envelope: { result: { status: 'complete' } } });
  });
});
