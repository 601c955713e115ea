import { describe, expect, it } from 'vitest';
import type { RalphQuestion } from '../../src/contract/answers.js';
import { type DurableMessages, durableAnswers } from '../../src/fleet/answer-wait.js';
import type { DurableSteps } from '../../src/fleet/durable-provider.js';
import { answerTopic, fleetQuestionOf, QUESTION_EVENT, storedJson } from '../../src/fleet/fleet-question.js';

const QUESTION: RalphQuestion = {
  runId: 'engine-id',
  round: 2,
  maxRounds: 5,
  question: 'Which database?',
  report: { status: 'blocked', summary: 's', evidence: [], nextSteps: [], blocker: 'Which database?' },
  waitMs: 60_000,
};

/** Fake DBOS steps and messages: `inbox` is what each recv returns in turn; what the run did is in `calls`. */
function fakeDbos(inbox: unknown[], { park = false, startedAt = 1_000 } = {}) {
  const calls: string[] = [];
  const events: unknown[] = [];
  const steps: DurableSteps & DurableMessages = {
    runStep: async <T>(_body: () => Promise<T>, name: string) => {
      calls.push(`step ${name}`);
      return startedAt as T;
    },
    cancelSignal: () => undefined,
    recv: async (topic, timeoutSeconds) => {
      calls.push(`recv ${topic} ${timeoutSeconds > 0 ? 'waits' : 'now'}`);
      return inbox.length === 0 ? null : inbox.shift();
    },
    setEvent: async (key, value) => {
      expect(key).toBe(QUESTION_EVENT);
      events.push(value);
    },
    isCancelled: (error) => error === 'cancelled',
    park: async (topic) => {
      calls.push(`park ${topic}`);
      return park;
    },
  };
  return { steps, calls, events };
}

const hooks = () => {
  const told: string[] = [];
  return { told, onCancel: () => told.push('cancel'), onParked: () => told.push('parked') };
};

describe('durableAnswers: a fleet run waiting for its answer', () => {
  it("takes its round's answer, skipping another round's and a malformed message; publishes the question, then none", async () => {
    const { steps, calls, events } = fakeDbos([
      { round: 1, answer: { kind: 'answer', text: 'stale' } },
      { round: 2, answer: { kind: 'answer', text: '' } },
      'junk',
      { round: 2, answer: { kind: 'answer', text: 'Postgres', by: 'cli' } },
    ]);
    const source = durableAnswers(steps, hooks());
    const outcome = await source(QUESTION, new AbortController().signal);
    expect(outcome).toEqual({ kind: 'answer', text: 'Postgres', by: 'cli' });
    expect(calls[0]).toBe('step answer-wait-2');
    expect(calls[1]).toBe(`park ${answerTopic(2)}`);
    expect(calls.slice(2)).toHaveLength(4);
    const published = fleetQuestionOf(events[0]);
    expect(published).toEqual({
      round: 2,
      maxRounds: 5,
      question: 'Which database?',
      waitMs: 60_000,
      askedAt: 1_000,
      deadline: 61_000,
    });
    expect(events.at(-1)).toBeNull();
  });

  it('resolves timed-out when its recorded deadline has passed (a takeover waits only the rest)', async () => {
    const { steps, calls } = fakeDbos([], { startedAt: Date.now() - 120_000 });
    expect(await durableAnswers(steps, hooks())(QUESTION, new AbortController().signal)).toEqual({
      kind: 'timed-out',
    });
    expect(calls.at(-1)).toBe(`recv ${answerTopic(2)} now`);
  });

  it('parks: tells its run to end, keeps the question published, and settles only on abort', async () => {
    const { steps, calls, events } = fakeDbos([], { park: true });
    const told = hooks();
    const controller = new AbortController();
    const waiting = durableAnswers(steps, told)(QUESTION, controller.signal);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(told.told).toEqual(['parked']);
    expect(calls.some((call) => call.startsWith('recv'))).toBe(false);
    controller.abort('parked');
    await expect(waiting).rejects.toBe('parked');
    expect(events).toHaveLength(1);
  });

  it('cancels its run when DBOS says the workflow was cancelled (ralph cancel while it waits)', async () => {
    const { steps } = fakeDbos([]);
    steps.recv = async () => {
      throw 'cancelled';
    };
    const told = hooks();
    await expect(durableAnswers(steps, told)(QUESTION, new AbortController().signal)).rejects.toBe(
      'cancelled',
    );
    expect(told.told).toEqual(['cancel']);
  });
});

describe('the stored question', () => {
  it('is read back checked: SuperJSON-wrapped or plain, and nothing that is not a question', () => {
    const question = { round: 1, maxRounds: 2, question: 'q', waitMs: 1, askedAt: 2, deadline: 3 };
    expect(
      fleetQuestionOf(storedJson(JSON.stringify({ json: question, __dbos_serializer: 'superjson' }))),
    ).toEqual(question);
    expect(fleetQuestionOf(storedJson(JSON.stringify(question)))).toEqual(question);
    expect(fleetQuestionOf(storedJson('null'))).toBeNull();
    expect(fleetQuestionOf(storedJson('{not json'))).toBeNull();
    expect(fleetQuestionOf({ ...question, round: 0 })).toBeNull();
    expect(fleetQuestionOf({ ...question, extra: 1 })).toBeNull();
  });
});
