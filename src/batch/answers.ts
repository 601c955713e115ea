import { howToAnswer, questionText } from '../contract/answer-messages.js';
import { type AnswerSource, DEFAULT_ANSWER_WAIT_MS } from '../contract/answers.js';
import { answeredLine, overParallelLine, runWaitsLine } from '../contract/batch-answer-messages.js';
import { parseDuration } from '../contract/duration.js';
import type { TaskAnswerEvent } from '../machines/batch-types.js';
import { stripControlToLine } from '../render/terminal-text.js';
import type { AskOptions } from '../run/ask-options.js';

// A batch task whose round reports blocked waits for a person (`ralph batch --ask`) without holding a parallel slot:
// its run actor tells the batch machine it asked (TASK.ASKED: the slot goes to another task), then that it got its
// answer (TASK.ANSWERED), and the answer reaches the run only once the machine gives it a slot again (SLOT). No
// agent runs while a task waits, so the slots bound the agents alive at once, as `--parallel` says.

/** How long each task's loop waits for a person's answer (ms), or undefined when the batch does not ask. */
export function answerWaitOf(options: AskOptions): number | undefined {
  if (options.waitForAnswers !== undefined)
    return parseDuration(options.waitForAnswers, '--wait-for-answers');
  return options.ask === true ? DEFAULT_ANSWER_WAIT_MS : undefined;
}

/** A waiting task's slot as its run actor sees it: given back when it asks, given again by the batch's SLOT. */
export class SlotGate {
  private granted = false;
  private readonly waiters = new Set<() => void>();

  /** The loop asked: it holds no slot until the batch grants one. */
  giveBack(): void {
    this.granted = false;
  }

  /** The batch gave the loop a slot (SLOT); whoever waits for one goes on. */
  grant(): void {
    this.granted = true;
    for (const wake of this.waiters) wake();
  }

  /**
   * Resolves true once a slot was granted, false when `deadline` (ms since the epoch) comes first; rejects with the
   * signal's reason when it aborts (a cancel, or the run's answer wait ended meanwhile).
   */
  wait(deadline: number, signal: AbortSignal): Promise<boolean> {
    if (this.granted) return Promise.resolve(true);
    return new Promise<boolean>((resolve, reject) => {
      const done = (granted: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal.removeEventListener('abort', onAbort);
        resolve(granted);
      };
      const wake = () => done(true);
      const onAbort = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        reject(signal.reason);
      };
      const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(wake);
    });
  }
}

/** What a task's answer source tells its batch: the machine's events, and lines of the batch's progress. */
export interface TaskAnswerHooks {
  send(event: TaskAnswerEvent): void;
  say(text: string): void;
}

/**
 * How long before its run's answer wait runs out an answered task goes on without a slot: its run's timer started a
 * moment before the source was called, so the source must give the answer a little earlier to be sure it counts.
 */
const slackMs = (waitMs: number): number => Math.min(1_000, Math.floor(waitMs / 10));

/**
 * A batch task's answer source: `answers` (the answer folder) between the batch's slot events. The question is said
 * with its run id and how to answer; an answer is held until the batch gives the loop a slot again, or given anyway
 * just before the run's wait would run out, the slot exceeded rather than a person's answer lost.
 */
export function taskAnswerSource(
  taskId: string,
  answers: AnswerSource,
  gate: SlotGate,
  hooks: TaskAnswerHooks,
): AnswerSource {
  return async (question, signal) => {
    const deadline = Date.now() + question.waitMs - slackMs(question.waitMs);
    const asked = stripControlToLine(question.question);
    gate.giveBack();
    hooks.send({ type: 'TASK.ASKED', taskId, question: asked });
    hooks.say(questionText(question.round, asked));
    hooks.say(runWaitsLine(question.runId, question.waitMs));
    hooks.say(howToAnswer(question.runId));
    const outcome = await answers(question, signal);
    if (outcome.kind !== 'answer') return outcome;
    hooks.say(
      answeredLine(question.round, outcome.by === undefined ? undefined : stripControlToLine(outcome.by)),
    );
    hooks.send({ type: 'TASK.ANSWERED', taskId });
    if (!(await gate.wait(deadline, signal))) {
      hooks.say(overParallelLine());
      hooks.send({ type: 'TASK.RESUMED', taskId });
    }
    return outcome;
  };
}
