import type { AnswerOutcome, AnswerSource } from '../contract/answers.js';
import type { DurableSteps } from './durable-provider.js';
import {
  answerMessageSchema,
  answerTopic,
  answerWaitStepName,
  type FleetQuestion,
  QUESTION_EVENT,
} from './fleet-question.js';

/** The DBOS messaging a fleet run's wait for an answer stands on (the worker's: `DBOS.recv`, `DBOS.setEvent`). */
export interface DurableMessages {
  /** `DBOS.recv(topic, { timeoutSeconds })`: the next message on the topic, consumed once; null when the time is up. */
  recv(topic: string, timeoutSeconds: number): Promise<unknown>;
  /** `DBOS.setEvent(key, value)`: what clients read of the run (its waiting question). */
  setEvent(key: string, value: unknown): Promise<void>;
  /** Whether an error is DBOS's word that the workflow was cancelled (`ralph cancel` while it waits). */
  isCancelled(error: unknown): boolean;
  /**
   * Parks the run until `deadline` unless its answer is there already (see answer-park.ts): resolves with whether it
   * parked, when the run's execution must end at once. Absent: the run waits in place.
   */
  park?(topic: string, deadline: number): Promise<boolean>;
}

/** Settles with `promise`, or rejects with the signal's reason once it aborts (the promise is then left behind). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A fleet run's answers: a durable DBOS receive. When the wait began is a step, so a worker that takes the run over
 * (replaying its steps) waits only the rest of it; the answer is a message the database keeps until the run takes
 * it, consumed once and recorded with the workflow, so it is delivered exactly once whichever worker runs the run
 * next, even one started after the answer was given. While it waits the run publishes its question (an event) for
 * `ralph status`, the dashboard and `ralph answer`, which refuses a run that publishes none. With `park` the run
 * waits holding no worker slot (answer-park.ts): `onParked` then ends its execution.
 */
export function durableAnswers(
  steps: DurableSteps & DurableMessages,
  { onCancel, onParked }: { onCancel(): void; onParked(): void },
): AnswerSource {
  return async (asked, signal) => {
    const askedAt = await steps.runStep(async () => Date.now(), answerWaitStepName(asked.round));
    const deadline = askedAt + asked.waitMs;
    const question: FleetQuestion = {
      round: asked.round,
      maxRounds: asked.maxRounds,
      question: asked.question,
      waitMs: asked.waitMs,
      askedAt,
      deadline,
    };
    await steps.setEvent(QUESTION_EVENT, question);
    const topic = answerTopic(asked.round);
    // Not a step: a replay decides again, from the database (an answer there, or the deadline passed: no park).
    const parked = steps.park === undefined ? false : await steps.park(topic, deadline).catch(() => false);
    if (parked) {
      // Its execution ends here, holding nothing; the question stays published for whoever answers it.
      onParked();
      return abortable(new Promise<never>(() => {}), signal);
    }
    let outcome: AnswerOutcome | undefined;
    try {
      while (outcome === undefined) {
        // Seconds from now: DBOS records the receive's own deadline with it, the same on a replay.
        const left = Math.max(0, deadline - Date.now()) / 1000;
        const message = await abortable(steps.recv(topic, left), signal).catch((error: unknown) => {
          // `ralph cancel` reaches a waiting run here (no step runs to see it): the run is cancelled, as in a round.
          if (steps.isCancelled(error)) onCancel();
          throw error;
        });
        if (message === null) outcome = { kind: 'timed-out' };
        const parsed = answerMessageSchema.safeParse(message);
        // Anything else on the topic (another round's answer, a malformed one) is not this question's answer.
        if (parsed.success && parsed.data.round === asked.round) outcome = parsed.data.answer;
      }
    } finally {
      // Not waiting any more: `ralph answer` refuses it from here on. Best effort when the run was cancelled.
      await steps.setEvent(QUESTION_EVENT, null).catch(() => {});
    }
    return outcome;
  };
}
