import { notWaiting } from '../contract/answer-messages.js';
import {
  type AnswerOutcome,
  type AnswerSource,
  answerTextProblem,
  type PersonAnswer,
  type RalphQuestion,
} from '../contract/answers.js';

/** Where a host hands answers to the runs that wait for one: keyed by run id, for every run of the host. */
export interface AnswerInbox {
  /** The source a run waits on: resolves when `answer` or `giveUp` names its run. */
  readonly source: AnswerSource;
  /** Gives a waiting run its answer; a run that is not waiting (or an answer that is refused) gets nothing. */
  answer(runId: string, text: string, by?: string): AnswerDelivery;
  /** Tells a waiting run that nobody will answer: it ends blocked now. */
  giveUp(runId: string, by?: string): AnswerDelivery;
  /** The questions waiting now, oldest first. */
  waiting(): RalphQuestion[];
  /** Called with each question as a run starts waiting; returns the unsubscribe. */
  onQuestion(listener: (question: RalphQuestion) => void): () => void;
}

/** What happened to an answer handed to an inbox. */
export type AnswerDelivery = { delivered: true; round: number } | { delivered: false; problem: string };

/** The text of an answer for a run that does not wait for one (the contract's, re-exported for the hosts). */
export { notWaiting };

/** Creates an in-process answer inbox (a host's: the MCP server's, a live page's, the engine's own). */
export function createAnswerInbox(): AnswerInbox {
  const pending = new Map<string, { question: RalphQuestion; settle: (answer: PersonAnswer) => void }>();
  const listeners = new Set<(question: RalphQuestion) => void>();

  const source: AnswerSource = (question, signal) =>
    new Promise<AnswerOutcome>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = () => {
        pending.delete(question.runId);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      pending.set(question.runId, {
        question,
        settle: (answer) => {
          done();
          resolve(answer);
        },
      });
      for (const listener of listeners) listener(question);
    });

  function deliver(runId: string, answer: PersonAnswer): AnswerDelivery {
    const entry = pending.get(runId);
    if (entry === undefined) return { delivered: false, problem: notWaiting(runId) };
    entry.settle(answer);
    return { delivered: true, round: entry.question.round };
  }

  return {
    source,
    answer(runId, text, by) {
      const problem = answerTextProblem(text);
      if (problem !== undefined) return { delivered: false, problem };
      return deliver(runId, { kind: 'answer', text: text.trim(), ...(by === undefined ? {} : { by }) });
    },
    giveUp: (runId, by) => deliver(runId, { kind: 'give-up', ...(by === undefined ? {} : { by }) }),
    waiting: () => [...pending.values()].map((entry) => entry.question),
    onQuestion(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * One source of many (a terminal, a file, a page, the engine's inbox): the first answer any gives wins and the others
 * stop waiting. A source that fails is left out; only when every source failed does the wait fail, with the first's
 * error.
 */
export function firstAnswer(sources: readonly AnswerSource[]): AnswerSource {
  return (question, signal) =>
    new Promise<AnswerOutcome>((resolve, reject) => {
      const each = new AbortController();
      const stopAll = () => each.abort(signal.reason);
      signal.addEventListener('abort', stopAll, { once: true });
      let failures = 0;
      let firstError: unknown;
      const finish = () => signal.removeEventListener('abort', stopAll);
      for (const wait of sources) {
        wait(question, each.signal).then(
          (answer) => {
            if (each.signal.aborted) return;
            finish();
            each.abort();
            resolve(answer);
          },
          (error: unknown) => {
            if (failures === 0) firstError = error;
            failures += 1;
            if (failures < sources.length) return;
            finish();
            reject(signal.aborted ? signal.reason : firstError);
          },
        );
      }
    });
}
