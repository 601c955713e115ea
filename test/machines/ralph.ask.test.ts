import { describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import {
  ANSWERED_BLOCKER_LABEL,
  DEFAULT_ANSWER_WAIT_MS,
  PERSON_ANSWER_LABEL,
} from '../../src/contract/answers.js';
import type { RalphReport } from '../../src/contract/types.js';
import { baseInput, eventsOf, railsOff, report, startRun } from './run-harness.js';

// A blocked loop that asks a person (`--ask`): a blocked report waits in `awaitingAnswer` for an answer, which starts
// the next round; no answer, a give-up, the time limit or a source that fails end the run blocked, as the reference.

const asking = (waitMs = 60_000, extra = {}) =>
  baseInput({ guardRails: { ...railsOff(), waitForAnswersMs: waitMs, ...extra } });
const blocked = (blocker = 'Which database should the migration target?'): RalphReport => ({
  ...report('blocked'),
  blocker,
});

describe('a run without --ask', () => {
  it('ends blocked at the first blocked report, as the reference, asking nobody', async () => {
    const run = startRun(baseInput({ guardRails: railsOff() }), { rounds: [{ output: blocked() }] });
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result).toEqual({
      status: 'blocked',
      rounds: 1,
      report: blocked(),
    });
    expect(run.questions).toEqual([]);
    expect(eventsOf(run.events, 'question-asked')).toEqual([]);
  });
});

describe('a run with --ask', () => {
  it('puts the blocker to a person, and an answer starts the next round with the report and the answer', async () => {
    const run = startRun(asking(), {
      rounds: [{ output: blocked() }, { output: report('complete') }],
      answers: [{ kind: 'answer', text: 'Postgres 16', by: 'terminal' }],
    });
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result.status).toBe('complete');
    expect(outcome.ok && outcome.envelope.result.rounds).toBe(2);
    expect(outcome.ok && outcome.envelope.agentsStarted).toBe(2);
    expect(run.questions).toEqual([
      {
        runId: 'run-1',
        round: 1,
        maxRounds: 3,
        question: 'Which database should the migration target?',
        report: blocked(),
        waitMs: 60_000,
      },
    ]);
    expect(eventsOf(run.events, 'question-asked')).toEqual([
      {
        type: 'question-asked',
        runId: 'run-1',
        round: 1,
        maxRounds: 3,
        question: 'Which database should the migration target?',
        waitMs: 60_000,
      },
    ]);
    expect(eventsOf(run.events, 'question-answered')).toEqual([
      {
        type: 'question-answered',
        runId: 'run-1',
        round: 1,
        maxRounds: 3,
        answer: 'Postgres 16',
        by: 'terminal',
      },
    ]);
  });

  it("hands the next round the blocked report as work remaining, the answer labelled as a person's", async () => {
    const run = startRun(asking(), {
      rounds: [{ output: blocked() }, 'hangs'],
      answers: [{ kind: 'answer', text: 'Postgres 16' }],
    });
    await waitFor(
      run.actor,
      (snapshot) =>
        snapshot.context.round === 2 && snapshot.matches({ running: { round: 'awaitingReport' } }),
    );
    expect(run.actor.getSnapshot().context.handoff).toEqual({
      ...blocked(),
      status: 'continue',
      blocker: null,
      nextSteps: [
        `${ANSWERED_BLOCKER_LABEL} Which database should the migration target?`,
        `${PERSON_ANSWER_LABEL} Postgres 16`,
      ],
    });
    run.actor.stop();
  });

  it('ends blocked with the unanswered question when nobody answers within the wait', async () => {
    const run = startRun(asking(60_000), { rounds: [{ output: blocked() }], answers: ['hangs'] });
    await run.reaches('running.awaitingAnswer');
    run.clock.increment(59_999);
    expect(run.actor.getSnapshot().matches({ running: 'awaitingAnswer' })).toBe(true);
    run.clock.increment(1);
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result).toEqual({
      status: 'blocked',
      rounds: 1,
      report: blocked(),
      question: { round: 1, reason: 'timed-out', waitMs: 60_000 },
    });
    expect(eventsOf(run.events, 'question-unanswered')).toEqual([
      {
        type: 'question-unanswered',
        runId: 'run-1',
        maxRounds: 3,
        round: 1,
        reason: 'timed-out',
        waitMs: 60_000,
      },
    ]);
  });

  it("ends blocked at once when a person gives up, or the source's own wait ran out", async () => {
    for (const [answer, reason] of [
      [{ kind: 'give-up' as const }, 'given-up'],
      [{ kind: 'timed-out' as const }, 'timed-out'],
    ] as const) {
      const run = startRun(asking(), { rounds: [{ output: blocked() }], answers: [answer] });
      const outcome = await run.outcome();
      expect(outcome.ok && outcome.envelope.result.question).toEqual({ round: 1, reason, waitMs: 60_000 });
    }
  });

  it('ends blocked, saying why, when the answer source fails', async () => {
    const run = startRun(asking(), {
      rounds: [{ output: blocked() }],
      answers: [{ fails: new Error('tty closed') }],
    });
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result.question).toEqual({
      round: 1,
      reason: 'unavailable',
      waitMs: 60_000,
      detail: 'tty closed',
    });
  });

  it('is cancelled at once while it waits: no child runs', async () => {
    const run = startRun(asking(), { rounds: [{ output: blocked() }], answers: ['hangs'] });
    await run.reaches('running.awaitingAnswer');
    expect(run.actor.getSnapshot().hasTag('childRunning')).toBe(false);
    run.actor.send({ type: 'CANCEL' });
    const outcome = await run.outcome();
    expect(!outcome.ok && outcome.failure.code).toBe('cancelled');
  });

  it("ends blocked when the run's time limit runs out while it waits", async () => {
    const run = startRun(asking(DEFAULT_ANSWER_WAIT_MS, { maxWallTimeMs: 120_000 }), {
      rounds: [{ output: blocked() }],
      answers: ['hangs'],
    });
    await run.reaches('running.awaitingAnswer');
    run.clock.increment(120_000);
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result.question).toEqual({
      round: 1,
      reason: 'time-limit',
      waitMs: DEFAULT_ANSWER_WAIT_MS,
    });
  });

  it('asks while the cost budget is not yet spent, and asks nobody once it is', async () => {
    const under = startRun(asking(60_000, { maxCostUsd: 1 }), {
      rounds: [{ output: blocked(), usage: { costUsd: 0.5 } }],
      answers: [{ kind: 'give-up' }],
    });
    const waited = await under.outcome();
    expect(under.questions.map((question) => question.round)).toEqual([1]);
    expect(waited.ok && waited.envelope.result.question?.reason).toBe('given-up');
    const spent = startRun(asking(60_000, { maxCostUsd: 1 }), {
      rounds: [{ output: blocked(), usage: { costUsd: 1 } }],
    });
    const ended = await spent.outcome();
    expect(spent.questions).toEqual([]);
    expect(ended.ok && ended.envelope.result.question).toBeUndefined();
  });

  it('names who answered, or why it went unanswered, only when there is one', async () => {
    const answered = startRun(asking(), {
      rounds: [{ output: blocked() }, { output: report('complete') }],
      answers: [{ kind: 'answer', text: 'Postgres 16' }],
    });
    await answered.outcome();
    expect(Object.keys(eventsOf(answered.events, 'question-answered')[0] ?? {})).not.toContain('by');
    const unanswered = startRun(asking(), {
      rounds: [{ output: blocked() }],
      answers: [{ kind: 'timed-out' }],
    });
    const outcome = await unanswered.outcome();
    expect(Object.keys((outcome.ok && outcome.envelope.result.question) || {})).not.toContain('detail');
    expect(Object.keys(eventsOf(unanswered.events, 'question-unanswered')[0] ?? {})).not.toContain('detail');
  });

  it('asks nobody at the round cap: an answer could start no round', async () => {
    const run = startRun(asking(), {
      rounds: [{ output: report('continue') }, { output: report('continue') }, { output: blocked() }],
    });
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result).toEqual({
      status: 'blocked',
      rounds: 3,
      report: blocked(),
    });
    expect(run.questions).toEqual([]);
  });

  it('asks again when the answered round is blocked again, within the cap', async () => {
    const run = startRun(asking(), {
      rounds: [{ output: blocked('first?') }, { output: blocked('second?') }, { output: report('complete') }],
      answers: [
        { kind: 'answer', text: 'one' },
        { kind: 'answer', text: 'two' },
      ],
    });
    const outcome = await run.outcome();
    expect(outcome.ok && outcome.envelope.result.status).toBe('complete');
    expect(run.questions.map((question) => [question.round, question.question])).toEqual([
      [1, 'first?'],
      [2, 'second?'],
    ]);
  });
});

describe('a run resumed while it waited for an answer', () => {
  const point = { round: 1, handoff: blocked(), agentsStarted: 1, awaitingAnswer: true };

  it('waits again, for the same question, and goes on with the answer', async () => {
    const run = startRun(
      { ...asking(), resume: point },
      { rounds: [{ output: report('complete') }], answers: [{ kind: 'answer', text: 'Postgres 16' }] },
    );
    const outcome = await run.outcome();
    expect(run.questions.map((question) => question.round)).toEqual([1]);
    expect(outcome.ok && outcome.envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
    expect(outcome.ok && outcome.envelope.agentsStarted).toBe(2);
  });

  it('is refused, starting nothing, without --ask or with a handoff that is not blocked', async () => {
    const without = startRun({ ...baseInput({ guardRails: railsOff() }), resume: point });
    const refused = await without.outcome();
    expect(!refused.ok && refused.failure.message).toContain('resume it with --ask');
    const notBlocked = startRun({ ...asking(), resume: { ...point, handoff: report('continue') } });
    const refusedToo = await notBlocked.outcome();
    expect(!refusedToo.ok && refusedToo.failure.message).toContain(
      'is not a blocked report the rules accept',
    ); // A handoff the rules refuse (a hand-edited recording), though it says blocked.
    const malformed = startRun({
      ...asking(),
      resume: { ...point, handoff: { status: 'blocked' } as unknown as RalphReport },
    });
    const refusedAlso = await malformed.outcome();
    expect(!refusedAlso.ok && refusedAlso.failure.message).toContain(
      'is not a blocked report the rules accept',
    );
  });
});
