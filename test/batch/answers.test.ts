import { describe, expect, test } from 'vitest';
import { answerWaitOf, SlotGate, taskAnswerSource } from '../../src/batch/answers.js';
import type { AnswerOutcome, AnswerSource, RalphQuestion } from '../../src/contract/answers.js';
import { DEFAULT_ANSWER_WAIT_MS } from '../../src/contract/answers.js';
import { statusLine } from '../../src/hosts/cli/batch-output.js';
import { batchSummaryLine } from '../../src/hosts/cli/batch-progress.js';
import type { TaskAnswerEvent, TaskStatus } from '../../src/machines/batch-types.js';
import { taskOutcome } from '../../src/visualize/batch-outcome.js';

const question = (waitMs = 60_000): RalphQuestion => ({
  runId: 'run-1',
  round: 2,
  maxRounds: 5,
  question: 'Which \u001b[31mdatabase\u001b[0m?',
  report: { status: 'blocked', summary: 's', evidence: [], nextSteps: [], blocker: 'Which database?' },
  waitMs,
});

/** An answer source the test answers by hand. */
function handSource() {
  let give: (outcome: AnswerOutcome) => void = () => {};
  const source: AnswerSource = () =>
    new Promise<AnswerOutcome>((resolve) => {
      give = resolve;
    });
  return { source, give: (outcome: AnswerOutcome) => give(outcome) };
}

/** A task's answer source over a hand source, with what it sent the batch and said. */
function scene(waitMs?: number) {
  const hand = handSource();
  const gate = new SlotGate();
  const sent: TaskAnswerEvent[] = [];
  const said: string[] = [];
  const source = taskAnswerSource('t', hand.source, gate, {
    send: (event) => sent.push(event),
    say: (text) => said.push(text),
  });
  const controller = new AbortController();
  const outcome = source(question(waitMs), controller.signal);
  return { ...hand, gate, sent, said, outcome, controller };
}

/** Resolves once `check` holds, looking again after each turn of the event loop's queue of promises. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

describe('a batch task that asks', () => {
  test('--ask waits a day, --wait-for-answers its duration, neither: no asking; a bad duration is refused', () => {
    expect(answerWaitOf({ ask: true })).toBe(DEFAULT_ANSWER_WAIT_MS);
    expect(answerWaitOf({ waitForAnswers: '2h' })).toBe(7_200_000);
    expect(answerWaitOf({ ask: true, waitForAnswers: '90s' })).toBe(90_000);
    expect(answerWaitOf({})).toBeUndefined();
    expect(() => answerWaitOf({ waitForAnswers: 'soon' })).toThrow(/--wait-for-answers/);
  });

  test('it says its question (control characters stripped) with its run id and how to answer, and gives its slot back', async () => {
    const { sent, said, give, gate, outcome } = scene();
    expect(sent).toEqual([{ type: 'TASK.ASKED', taskId: 't', question: 'Which [31mdatabase[0m?' }]);
    expect(said).toEqual([
      'Round 2 is blocked and asks: Which [31mdatabase[0m?',
      'run run-1 waits up to 1m for an answer; its parallel slot goes to the other tasks meanwhile',
      'Answer with: ralph answer run-1 "your answer"  (or --give-up to end it blocked)',
    ]);
    give({ kind: 'answer', text: 'postgres', by: 'ann' });
    await until(() => sent.length === 2);
    expect(sent[1]).toEqual({ type: 'TASK.ANSWERED', taskId: 't' });
    expect(said.at(-1)).toBe("round 2's blocker was answered (by ann)");
    // The answer reaches the run only once the batch gives the loop a slot.
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    gate.grant();
    await expect(outcome).resolves.toEqual({ kind: 'answer', text: 'postgres', by: 'ann' });
    expect(sent).toHaveLength(2);
  });

  test('a give-up goes to the run at once: no slot is asked for', async () => {
    const { sent, give, outcome } = scene();
    give({ kind: 'give-up' });
    await expect(outcome).resolves.toEqual({ kind: 'give-up' });
    expect(sent.map((event) => event.type)).toEqual(['TASK.ASKED']);
  });

  test('no slot before its wait would run out: the answer goes to the run anyway, beyond --parallel, and it says so', async () => {
    const { sent, said, give, outcome } = scene(40);
    give({ kind: 'answer', text: 'postgres' });
    await expect(outcome).resolves.toEqual({ kind: 'answer', text: 'postgres' });
    expect(sent.map((event) => event.type)).toEqual(['TASK.ASKED', 'TASK.ANSWERED', 'TASK.RESUMED']);
    expect(said.at(-1)).toBe(
      'no parallel slot freed before its answer wait would have run out: it goes on beyond --parallel',
    );
  });

  test('aborted while it waits for a slot (a cancel, or its run stopped waiting): it rejects with the reason', async () => {
    const { sent, give, outcome, controller } = scene();
    give({ kind: 'answer', text: 'postgres' });
    await until(() => sent.length === 2);
    controller.abort(new Error('cancelled'));
    await expect(outcome).rejects.toThrow('cancelled');
  });

  test('a slot granted before the gate is waited on is not lost; asking again gives it back', async () => {
    const gate = new SlotGate();
    gate.grant();
    await expect(gate.wait(Date.now() + 60_000, new AbortController().signal)).resolves.toBe(true);
    gate.giveBack();
    await expect(gate.wait(Date.now(), new AbortController().signal)).resolves.toBe(false);
  });
});

describe("the batch's lines", () => {
  const tasks = (...statuses: TaskStatus[]) => statuses.map((status) => ({ status }));

  test('the live summary counts the tasks waiting for an answer, and answered ones waiting for a slot', () => {
    expect(batchSummaryLine(tasks('running', 'awaiting-answer', 'landed'), null)).toBe(
      'ralph batch: 1 running · 1 waiting for an answer · 1 landed',
    );
    expect(batchSummaryLine(tasks('answered', 'awaiting-answer', 'awaiting-answer'), null)).toBe(
      'ralph batch: 0 running · 2 waiting for an answer · 1 answered, waiting for a slot',
    );
  });

  test("the batch's page says a task waits for an answer (its question), or for a slot after one", () => {
    expect(taskOutcome('awaiting-answer', 'Which database?', 'main', null)).toEqual({
      label: 'Waiting for an answer: Which database?',
      tone: 'live',
    });
    expect(taskOutcome('answered', null, 'main', null)).toEqual({
      label: 'Answered, waiting for a parallel slot',
      tone: 'live',
    });
  });

  test("a task's status line while it waits for an answer, or for a slot after one", () => {
    const entry = { id: 't', after: [], conflicts: [] };
    expect(statusLine({ ...entry, status: 'awaiting-answer', note: 'Which database?' }, 'main')).toBe(
      'waiting for an answer: Which database?',
    );
    expect(statusLine({ ...entry, status: 'answered', note: null }, 'main')).toBe(
      'answered; it goes on once a parallel slot is free',
    );
  });
});
