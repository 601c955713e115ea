import { howToAnswer, questionNotificationText } from '../contract/answer-messages.js';
import type { RalphError } from '../contract/errors.js';
import { guardRailProgressText } from '../contract/guard-rail-messages.js';
import type { RalphEnvelope, RalphProgressEvent } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import { renderResultText } from '../render/result-text.js';
import { type Notification, notification } from './notification.js';
import type { Notifier } from './notifier.js';

/** What a host tells the notifications of one run: its progress, and how it settled or failed. */
export interface RunNotifications {
  /**
   * Pass every progress event: a usage-limit wait and a question put to a person are notified, the rounds and the
   * cost are kept for the end.
   */
  onProgress(event: RalphProgressEvent): void;
  /** Pass the run's summed usage (RalphExec.onUsage): its cost goes with the ending. */
  onUsage(total: RalphUsage): void;
  /** The run settled: `run.blocked` when blocked, else `run.ended`, with the native result text. */
  settled(envelope: RalphEnvelope, maxResultChars?: number): void;
  /** The run failed or was cancelled: `run.ended` with the failure's message. A refusal started no run: nothing. */
  failed(error: RalphError): void;
}

/** What a host knows of a run beyond its events. */
export interface RunNotificationOptions {
  /** The run's page or recording, when the host has one. */
  link?: string;
  /** The run's id as its host names it (a fleet run's is its workflow's), over the engine's. */
  runId?: string;
  /** The lines that tell a person how to answer a waiting run (`run.question`); `ralph answer <run-id>` by default. */
  howToAnswer?: (runId: string) => readonly string[];
}

/** The notifications of one run, sent through `notifier` (nothing at all when it has no target). */
export function runNotifications(
  notifier: Notifier,
  {
    link,
    runId: fixedRunId,
    howToAnswer: answerWays = (id) => [howToAnswer(id)],
  }: RunNotificationOptions = {},
): RunNotifications {
  let runId = fixedRunId ?? '';
  let rounds: number | undefined;
  let costUsd: number | undefined;
  const send = (fields: Pick<Notification, 'event' | 'status' | 'text'> & Partial<Notification>) => {
    if (!notifier.enabled) return;
    notifier.send(
      notification({
        runId,
        ...(rounds === undefined ? {} : { rounds }),
        ...(costUsd === undefined ? {} : { costUsd }),
        ...(link === undefined ? {} : { link }),
        ...fields,
      }),
    );
  };
  return {
    onProgress(event) {
      runId = fixedRunId ?? event.runId;
      rounds = Math.max(rounds ?? 0, event.round);
      if (event.type === 'report-accepted' && event.totalUsage?.costUsd !== undefined)
        costUsd = event.totalUsage.costUsd;
      if (event.type === 'limit-wait-started')
        send({
          event: 'run.limit-wait',
          status: 'waiting',
          text: `round ${event.round}: ${guardRailProgressText(event) ?? ''}\n${event.detail}`,
        });
      if (event.type === 'question-asked')
        send({
          event: 'run.question',
          status: 'waiting',
          question: event.question,
          round: event.round,
          text: questionNotificationText(event.round, event.question, event.waitMs, answerWays(runId)),
        });
    },
    onUsage(total) {
      if (total.costUsd !== undefined) costUsd = total.costUsd;
    },
    settled(envelope, maxResultChars) {
      const { status } = envelope.result;
      runId = fixedRunId ?? envelope.runId;
      rounds = envelope.result.rounds;
      send({
        event: status === 'blocked' ? 'run.blocked' : 'run.ended',
        status,
        text: renderResultText(envelope, maxResultChars),
      });
    },
    failed(error) {
      if (error.code === 'refused') return;
      runId = fixedRunId ?? error.runId ?? runId;
      const detail =
        error.detail === undefined || error.message.includes(error.detail) ? '' : `\n${error.detail}`;
      send({
        event: 'run.ended',
        status: error.code === 'cancelled' ? 'cancelled' : 'failed',
        text: `${error.message}${detail}`,
      });
    },
  };
}
