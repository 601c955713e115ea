import { z } from 'zod';

/** Every event a notification is sent for. */
export const NOTIFICATION_EVENTS = [
  'run.ended',
  'run.blocked',
  'run.limit-wait',
  'run.question',
  'batch.task-needs-review',
] as const;

/** What a notification is about. */
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/**
 * The JSON of a notification, as a receiver reads it (the body of a generic webhook, a notify command's stdin). It
 * carries what the run printed and nothing of the environment: no credentials, no tokens, no database URL.
 */
export const notificationSchema = z
  .object({
    /** Always `ralph`: what sent it. */
    source: z.literal('ralph'),
    event: z.enum(NOTIFICATION_EVENTS),
    /** The run's id; a batch task's is `<batch id>/<task id>`. */
    runId: z.string(),
    /**
     * How the run stands: complete, blocked, budget-limited, failed or cancelled when it ended; waiting while it
     * waits out a usage limit or for a person's answer; needs-review for a batch task.
     */
    status: z.string(),
    /** The native text: the result text the run printed, its failure message, or the progress line. */
    text: z.string(),
    /** Rounds started so far; absent when unknown. */
    rounds: z.number().int().nonnegative().optional(),
    /** What the rounds' agents said they cost, in US dollars; absent when none said. */
    costUsd: z.number().nonnegative().optional(),
    /** The blocker a waiting run asks a person about (`run.question`), word for word. */
    question: z.string().optional(),
    /** The round that reported blocked and asks (`run.question`). */
    round: z.number().int().positive().optional(),
    /** The run's page or recording (a live inspector URL, or a recording `ralph report` makes a page of). */
    link: z.string().optional(),
    /** The batch a task belongs to. */
    batchId: z.string().optional(),
    /** The batch task. */
    taskId: z.string().optional(),
    /** When it was sent (ISO 8601). */
    at: z.string(),
  })
  .strict();

/** A notification: one JSON object per event. */
export type Notification = z.infer<typeof notificationSchema>;

/** A notification with `source` and `at` filled in. */
export function notification(fields: Omit<Notification, 'source' | 'at'>, now = new Date()): Notification {
  return { source: 'ralph', ...fields, at: now.toISOString() };
}

/** One line that says what a notification is about, for chat webhooks and the like. */
export function headline(note: Notification): string {
  const rounds =
    note.rounds === undefined ? '' : ` after ${note.rounds} round${note.rounds === 1 ? '' : 's'}`;
  const cost = note.costUsd === undefined ? '' : ` ($${note.costUsd.toFixed(2)})`;
  const status = note.event === 'run.question' ? 'waiting for an answer' : note.status;
  return `ralph ${note.runId}: ${status}${rounds}${cost}`;
}
