import { describe, expect, it } from 'vitest';
import * as texts from '../../src/contract/answer-messages.js';
import * as page from '../../src/contract/answer-page-messages.js';
import * as batch from '../../src/contract/batch-answer-messages.js';
import * as fleet from '../../src/contract/fleet-answer-messages.js';

// Every text of a run that asks a person (`--ask`), word for word: the reference has none of them, so each is
// pinned here, where the mutation run sees it.

describe('a run that asks: its texts', () => {
  it('says a run that waits on no question is not waiting', () => {
    expect(texts.notWaiting('run-1')).toBe('Ralph run run-1 is not waiting for an answer');
  });

  it('says why a blocked run ended without an answer, for each reason', () => {
    const base = { round: 2, waitMs: 7_200_000 };
    expect(texts.unansweredLine({ ...base, reason: 'timed-out' })).toBe(
      "Nobody answered round 2's blocker within 2h; the run ended blocked.",
    );
    expect(texts.unansweredLine({ ...base, reason: 'given-up' })).toBe(
      "A person chose not to answer round 2's blocker; the run ended blocked.",
    );
    expect(texts.unansweredLine({ ...base, reason: 'time-limit' })).toBe(
      "The run's time limit ran out while it waited for an answer to round 2's blocker; the run ended blocked.",
    );
    expect(texts.unansweredLine({ ...base, reason: 'unavailable', detail: 'tty closed' })).toBe(
      "Round 2's blocker could not be put to a person (tty closed); the run ended blocked.",
    );
    expect(texts.unansweredLine({ ...base, reason: 'unavailable' })).toBe(
      "Round 2's blocker could not be put to a person (no answer source); the run ended blocked.",
    );
  });

  it('puts the question and how to answer it', () => {
    expect(texts.questionText(1, 'Which database?')).toBe('Round 1 is blocked and asks: Which database?');
    expect(texts.howToAnswer('r1')).toBe(
      'Answer with: ralph answer r1 "your answer"  (or --give-up to end it blocked)',
    );
    expect(texts.waitingForAnswerText('r1', 86_400_000)).toBe(
      'Waiting up to 1d for an answer. Answer with: ralph answer r1 "your answer"  (or --give-up to end it blocked)',
    );
    expect(texts.questionNotificationText(1, 'Which database?', 60_000, ['way one', 'way two'])).toBe(
      'Round 1 is blocked and asks: Which database?\nThe run waits up to 1m for an answer.\nway one\nway two',
    );
  });

  it('names and describes the ralph_answer tool, and what its calls say', () => {
    expect(texts.RALPH_ANSWER_TOOL).toBe('ralph_answer');
    expect(texts.RALPH_ANSWER_DESCRIPTION).toBe(
      'Answers the question of a ralph run that waits for a person: a round reported blocked, and the pending ralph ' +
        "call's progress carries its run id and the blocker. Give { runId, answer } to start the next round with the " +
        "answer (labelled as a person's), or { runId, giveUp: true } to end the run blocked now. Answer only with what a " +
        'person said: the next round trusts it as theirs.',
    );
    expect(texts.howToAnswerWithTool('r1')).toBe(
      'Answer with the ralph_answer tool: { "runId": "r1", "answer": "…" } (or "giveUp": true to end it blocked)',
    );
    expect(texts.answerTaken('r1', 3)).toBe(
      "Ralph run r1 took the answer to round 3's blocker; round 4 starts with it",
    );
    expect(texts.giveUpTaken('r1', 3)).toBe(
      "Ralph run r1 stops waiting for an answer to round 3's blocker; it ends blocked",
    );
    expect(texts.ANSWER_OR_GIVE_UP).toBe(
      'Ralph cannot tell what to do: give either an answer (a non-empty string) or giveUp: true, not both',
    );
    expect(texts.answerArgsInvalid('runId: required')).toBe(
      'Ralph cannot read the ralph_answer call: runId: required',
    );
  });

  it("says the question in a call's progress, again while it waits, and once answered", () => {
    const question = { runId: 'r1', round: 1, maxRounds: 4, question: 'Which database?', waitMs: 3_600_000 };
    expect(texts.questionProgressText(question, 'HOW')).toBe(
      'Round 1/4 is blocked and asks: Which database?\nThe run waits up to 1h for an answer. HOW',
    );
    expect(texts.stillWaitingText(question, 30_400, 'ralph_answer')).toBe(
      'Round 1 still waits for an answer (30s of 1h): Which database?\nAnswer with the ralph_answer tool, runId "r1"',
    );
    expect(texts.stillWaitingText(question, 10, 'ralph_answer')).toContain('(1s of 1h)');
    expect(texts.answeredProgressText(1, undefined)).toBe(
      "Round 1's blocker was answered; round 2 starts with the answer",
    );
    expect(texts.answeredProgressText(1, 'mcp')).toBe(
      "Round 1's blocker was answered (by mcp); round 2 starts with the answer",
    );
  });

  it('prompts at the terminal, and says when it stopped reading it', () => {
    expect(texts.TERMINAL_ANSWER_PROMPT).toBe(
      'Or type the answer here and press Enter (an empty line is ignored; Ctrl-D stops reading the terminal):',
    );
    expect(texts.TERMINAL_ANSWER_CLOSED).toBe(
      'No longer reading the terminal; the run still takes an answer from ralph answer until its wait runs out.',
    );
  });

  it('words the progress lines of an answered and an unanswered question', () => {
    expect(texts.questionAnsweredText(1, 4, 'Postgres')).toBe("round 1/4's blocker was answered: Postgres");
    expect(texts.questionAnsweredText(1, 4, 'Postgres', 'terminal')).toBe(
      "round 1/4's blocker was answered (terminal): Postgres",
    );
    const ending = { round: 1, maxRounds: 4, waitMs: 60_000 };
    expect(texts.questionUnansweredText({ ...ending, reason: 'timed-out' })).toBe(
      'round 1/4: stopped waiting for an answer, nobody answered within 1m',
    );
    expect(texts.questionUnansweredText({ ...ending, reason: 'given-up' })).toBe(
      'round 1/4: stopped waiting for an answer, a person chose not to answer',
    );
    expect(texts.questionUnansweredText({ ...ending, reason: 'time-limit' })).toBe(
      "round 1/4: stopped waiting for an answer, the run's time limit ran out",
    );
    expect(texts.questionUnansweredText({ ...ending, reason: 'unavailable', detail: 'x' })).toBe(
      'round 1/4: stopped waiting for an answer, the question could not be put to a person (x)',
    );
    expect(texts.questionUnansweredText({ ...ending, reason: 'unavailable' })).toBe(
      'round 1/4: stopped waiting for an answer, the question could not be put to a person (no answer source)',
    );
  });

  it('words what ralph answer says and refuses', () => {
    expect(texts.answerLeftText('r1', 2, false)).toBe(
      "Answered round 2's blocker of run r1: its next round starts with the answer.",
    );
    expect(texts.answerLeftText('r1', 2, true)).toBe(
      "Told run r1 that nobody will answer round 2's blocker: it ends blocked.",
    );
    expect(texts.answerForGoneRunText('r1', 42, undefined)).toBe(
      "Run r1's process 42 is gone, and it kept no recording (--record): nothing can resume it to take the answer.",
    );
    expect(texts.answerForGoneRunText('r1', 42, 'run.jsonl')).toBe(
      "Run r1's process 42 is gone; the answer is kept, and ralph resume run.jsonl will take it.",
    );
    expect(texts.ANSWER_ARGUMENT_PROBLEMS).toEqual({
      both: 'ralph answer takes an answer or --give-up, not both',
      neither: 'ralph answer needs the answer text, or --give-up to end the run blocked',
    });
    expect(texts.answerTargetProblem('x/y', 'no such file')).toBe(
      'ralph answer: "x/y" is neither a run id nor a run\'s recording (no such file)',
    );
  });
});

describe("the live page's answer box: its texts", () => {
  it('names the live page, titles the box and words each refusal', () => {
    expect(page.LIVE_PAGE_ANSWERER).toBe('live page');
    expect(page.ANSWER_BOX_TITLE).toBe('A question for you');
    expect(page.ANSWER_BOX_LABEL).toBe(
      "Your answer (up to 8192 characters): the next round reads it as a person's words",
    );
    expect(page.answerNotFromPage).toBe('an answer comes from the run page only');
    expect(page.answerNotJson).toBe('an answer is sent as JSON (content-type: application/json)');
    expect(page.answerTooLarge(100)).toBe("an answer's request is at most 100 bytes");
    expect(page.answerMalformed('empty')).toBe('that is no answer: empty');
    expect(page.answerNotForRound(3)).toBe(
      'round 3 does not wait for an answer (it was answered, or the run has gone on)',
    );
    expect(page.ANSWER_SENT).toBe('Answer sent: the next round starts with it.');
    expect(page.GIVE_UP_SENT).toBe('Given up: the run ends blocked.');
  });
});

describe("a batch's tasks that ask: their texts", () => {
  it('words the live summary, the progress lines and ralph status', () => {
    expect(batch.WAITING_FOR_ANSWER_WORDS).toBe('waiting for an answer');
    expect(batch.ANSWERED_WORDS).toBe('answered, waiting for a slot');
    expect(batch.runWaitsLine('r1', 3_600_000)).toBe(
      'run r1 waits up to 1h for an answer; its parallel slot goes to the other tasks meanwhile',
    );
    expect(batch.answeredLine(2, undefined)).toBe("round 2's blocker was answered");
    expect(batch.answeredLine(2, 'test')).toBe("round 2's blocker was answered (by test)");
    expect(batch.waitsForSlotLine()).toBe('answered; it goes on once a parallel slot is free');
    expect(batch.overParallelLine()).toBe(
      'no parallel slot freed before its answer wait would have run out: it goes on beyond --parallel',
    );
    expect(batch.statusWaitingLine('r1', 1, 1_000, 61_000)).toBe(
      'waiting for an answer: run r1, round 1, asked 1m ago',
    );
    expect(batch.statusWaitingLine('r1', 1, 61_000, 1_000)).toContain('asked ');
    expect(batch.statusOrphanedLine('r1', 2)).toBe(
      "run r1 was waiting for an answer to round 2's blocker when its batch stopped; answer it, then resume the batch (ralph batch --resume)",
    );
  });
});

describe('a fleet run that asks: its texts', () => {
  it('words its refusals, what ralph answer says and the status line', () => {
    expect(fleet.fleetNotWaiting('r1', 'running')).toBe(
      'ralph: fleet run r1 is not waiting for an answer (it is running)',
    );
    expect(fleet.fleetAnsweredAlready('r1', 2)).toBe(
      "ralph: round 2's blocker of fleet run r1 has its answer already; the first answer counts",
    );
    expect(fleet.answerRefused({ text: '  ' })).toBe('Ralph cannot take an empty answer');
    expect(fleet.answerRefused({ text: 'fine' })).toBe('Ralph cannot take this answer');
    expect(fleet.answerRefused(null)).toBe('Ralph cannot take this answer');
    expect(fleet.answerRefused({ text: 3 })).toBe('Ralph cannot take this answer');
    expect(fleet.fleetAnswerSent('r1', 2, { kind: 'answer', text: 'x' })).toBe(
      "ralph answer: sent the answer to round 2's blocker of fleet run r1; the worker that runs it next takes it",
    );
    expect(fleet.fleetAnswerSent('r1', 2, { kind: 'give-up' })).toBe(
      "ralph answer: sent the word to give up on round 2's blocker of fleet run r1; the worker that runs it next takes it",
    );
    expect(fleet.fleetWaitingText(1, Date.UTC(2026, 11, 5), 'Which?')).toBe(
      "waiting for an answer to round 1's blocker until 2026-12-05T00:00:00.000Z: Which?",
    );
  });
});
