import { formatDuration } from './duration.js';

/**
 * The texts of a batch whose tasks ask a person (`ralph batch --ask`): its progress lines, its live summary's word
 * and `ralph status <batch>`. A run's own texts (the question, how to answer, why it ended unanswered) are in
 * answer-messages.ts; these say what the batch does meanwhile.
 */

/** The live summary's words for the tasks that wait for a person's answer: `1 waiting for an answer`. */
export const WAITING_FOR_ANSWER_WORDS = 'waiting for an answer';

/** The live summary's words for answered tasks that wait for a free parallel slot. */
export const ANSWERED_WORDS = 'answered, waiting for a slot';

/** The progress line after a task's question: which run waits, how long, and that it holds no slot meanwhile. */
export const runWaitsLine = (runId: string, waitMs: number): string =>
  `run ${runId} waits up to ${formatDuration(waitMs)} for an answer; its parallel slot goes to the other tasks meanwhile`;

/** The progress line once a task's question was answered. */
export const answeredLine = (round: number, by: string | undefined): string =>
  `round ${round}'s blocker was answered${by === undefined ? '' : ` (by ${by})`}`;

/** A task's status line once answered while every parallel slot is taken. */
export const waitsForSlotLine = (): string => 'answered; it goes on once a parallel slot is free';

/** The progress line of an answered task that goes on without a free slot rather than lose its answer. */
export const overParallelLine = (): string =>
  'no parallel slot freed before its answer wait would have run out: it goes on beyond --parallel';

/** `ralph status <batch>`'s line of a task whose run waits for an answer. */
export const statusWaitingLine = (runId: string, round: number, askedAt: number, now: number): string =>
  `waiting for an answer: run ${runId}, round ${round}, asked ${formatDuration(Math.max(0, now - askedAt))} ago`;

/** `ralph status <batch>`'s line of a task whose question was left by a batch process that is gone. */
export const statusOrphanedLine = (runId: string, round: number): string =>
  `run ${runId} was waiting for an answer to round ${round}'s blocker when its batch stopped; answer it, then resume the batch (ralph batch --resume)`;
