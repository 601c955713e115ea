import { z } from 'zod';
import { personAnswerSchema } from '../contract/answers.js';

/**
 * The DBOS topic a waiting fleet run receives the answer to round `round`'s blocker on (`ralph answer` sends there):
 * one a question, so a late answer to one question is never taken for the next's, and a run knows a question it
 * was answered (its message is kept, taken or not).
 */
export const answerTopic = (round: number): string => `ralph-answer:${round}`;

/** The DBOS event a fleet run keeps its waiting question in (null once the wait is over). */
export const QUESTION_EVENT = 'ralph-question';

/** The step that records when a run began to wait for the answer to round `round`'s blocker. */
export const answerWaitStepName = (round: number): string => `answer-wait-${round}`;

/** The question a fleet run waits on, as its workflow publishes it for `ralph status`, the dashboard and `ralph answer`. */
export interface FleetQuestion {
  /** The round that reported blocked. */
  round: number;
  maxRounds: number;
  /** The blocker, word for word. */
  question: string;
  /** How long the run waits in all (ms). */
  waitMs: number;
  /** When the wait began (epoch ms; recorded once, so a worker that takes the run over waits only the rest). */
  askedAt: number;
  /** When it ends unanswered (epoch ms). */
  deadline: number;
}

/** A question as it is read back from the database, which anyone who can write to it fills: checked before use. */
export const fleetQuestionSchema = z.strictObject({
  round: z.number().int().min(1).max(256),
  maxRounds: z.number().int().min(1).max(256),
  question: z.string().max(64 * 1024),
  waitMs: z.number().int().min(0),
  askedAt: z.number().int().min(0),
  deadline: z.number().int().min(0),
});

/** The message `ralph answer` sends a waiting run: the answer and the round whose blocker it answers. */
export const answerMessageSchema = z.strictObject({
  round: z.number().int().min(1).max(256),
  answer: personAnswerSchema,
});

/** An answer message. */
export type FleetAnswerMessage = z.infer<typeof answerMessageSchema>;

/** The waiting question in what the database holds, or null when there is none (or it is not one). */
export function fleetQuestionOf(stored: unknown): FleetQuestion | null {
  const parsed = fleetQuestionSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

/** A stored DBOS value's JSON (SuperJSON's `json` part, or the portable JSON itself); undefined when it is not JSON. */
export function storedJson(text: string): unknown {
  try {
    const parsed = JSON.parse(text) as unknown;
    const wrapped = parsed as { __dbos_serializer?: unknown; json?: unknown } | null;
    return typeof wrapped === 'object' && wrapped !== null && '__dbos_serializer' in wrapped
      ? wrapped.json
      : parsed;
  } catch {
    return undefined;
  }
}
