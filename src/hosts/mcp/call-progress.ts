import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import {
  answeredProgressText,
  howToAnswerWithTool,
  questionProgressText,
  RALPH_ANSWER_TOOL,
  stillWaitingText,
  unansweredLine,
} from '../../contract/answer-messages.js';
import { guardRailProgressText } from '../../contract/guard-rail-messages.js';
import type { RalphProgressEvent } from '../../contract/types.js';
import { usageSuffix } from '../../contract/usage.js';

/** The progress notifications of one call: sent in round order, each delivered before the call's result. */
export interface CallProgress {
  /** The tool's progress listener: one notification per accepted round report. */
  onProgress: (event: RalphProgressEvent) => void;
  /**
   * Resolves once every notification sent so far is on the wire and the client has dispatched it, or once the call
   * is aborted (a client that went away is not waited for). Never rejects: a lost notification never fails a call.
   */
  delivered(): Promise<void>;
}

/** What a call's progress needs from the MCP request it belongs to. */
export interface ProgressLink {
  /** The request's progress token; without one the client asked for no progress. */
  token: ProgressToken | undefined;
  /** Sends a notification related to the request. */
  send(notification: ServerNotification): Promise<void>;
  /** A round trip to the client (a `ping`), answered only after the client has handled what was sent before it. */
  roundTrip(): Promise<unknown>;
  /** Aborted when the call is cancelled or the server shuts down. */
  signal: AbortSignal;
  /** How often a question that waits is said again (ms); never when undefined. */
  reminderMs?: number;
}

/**
 * The message of a progress notification: one per accepted report, one per guard-rail event, and one as a run starts
 * and stops waiting for a person's answer (a run without guard rails or answers sends exactly the reference's); null
 * for the events that send none.
 */
function progressMessage(event: RalphProgressEvent): string | null {
  if (event.type === 'report-accepted') {
    const { status, summary } = event.report;
    return `Round ${event.round}/${event.maxRounds} reported ${status}: ${summary}${usageSuffix(event.usage, event.totalUsage)}`;
  }
  if (event.type === 'question-asked') return questionProgressText(event, howToAnswerWithTool(event.runId));
  if (event.type === 'question-answered') return answeredProgressText(event.round, event.by);
  if (event.type === 'question-unanswered') return unansweredLine(event);
  const text = guardRailProgressText(event);
  if (text === null) return null;
  return event.type === 'time-limit-reached' ? text : `Round ${event.round}/${event.maxRounds} ${text}`;
}

/**
 * The `_meta` key under which a call's result carries what its run used in all (a RalphUsage), and a progress
 * notification of an accepted report what its round used and the run so far (`{ round?, total? }`); each is there
 * only when an agent said what it used.
 */
export const USAGE_META_KEY = 'ralph-machine/usage';

/**
 * The `_meta` key under which the progress notification of a run that starts waiting for an answer carries its
 * question for a client to act on: `{ runId, round, maxRounds, question, waitMs, answerTool }`.
 */
export const QUESTION_META_KEY = 'ralph-machine/question';

/** The `_meta` of a progress notification: a report's usage, when known, or a waiting run's question. */
function progressMeta(event: RalphProgressEvent): Record<string, unknown> | undefined {
  if (event.type === 'question-asked') {
    const { runId, round, maxRounds, question, waitMs } = event;
    return {
      [QUESTION_META_KEY]: { runId, round, maxRounds, question, waitMs, answerTool: RALPH_ANSWER_TOOL },
    };
  }
  if (event.type !== 'report-accepted') return undefined;
  if (event.usage === undefined && event.totalUsage === undefined) return undefined;
  return {
    [USAGE_META_KEY]: {
      ...(event.usage === undefined ? {} : { round: event.usage }),
      ...(event.totalUsage === undefined ? {} : { total: event.totalUsage }),
    },
  };
}

/** Resolves when `work` settles or `signal` aborts, whichever comes first; never rejects. */
function settledOrAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    work.then(done, done);
  });
}

/** The notifications of one request, sent in order, and a way to wait until the client has dispatched them. */
export interface ProgressSender {
  /** Sends one progress notification after those sent before it. */
  push(params: { progress: number; total?: number; message: string; _meta?: Record<string, unknown> }): void;
  /** As `CallProgress.delivered`: every notification sent so far dispatched by the client, or the call aborted. */
  delivered(): Promise<void>;
}

/**
 * The notifications of a request with a progress token. They are chained, so they leave in order, and `delivered`
 * waits for the last of them and then for a round trip to the client. Waiting for the writes alone is not enough:
 * the SDK's client dispatches a notification one microtask later but a response at once, so a progress
 * notification read in the same chunk as the result reaches a request already answered and is dropped (seen with
 * @modelcontextprotocol/sdk 1.32.2, typescript-sdk issue #2580). The client answers the `ping` only after it has
 * dispatched everything read before it, so once the answer is back the progress has been delivered.
 */
export function progressSender(link: ProgressLink, token: ProgressToken): ProgressSender {
  let sent: Promise<void> = Promise.resolve();
  let unconfirmed = false;
  return {
    push({ _meta, ...values }) {
      const notification: ServerNotification = {
        method: 'notifications/progress',
        params: { ...(_meta === undefined ? {} : { _meta }), progressToken: token, ...values },
      };
      unconfirmed = true;
      // A client that went away misses its progress; the call itself still settles.
      sent = sent.then(() => link.send(notification)).catch(() => {});
    },
    async delivered() {
      if (!unconfirmed) return;
      unconfirmed = false;
      const confirmed = sent.then(() => link.roundTrip()).catch(() => {});
      await settledOrAborted(confirmed, link.signal);
    },
  };
}

/** The progress of one call: one notification per round report, guard-rail event or question (see progressSender). */
export function callProgress(link: ProgressLink): CallProgress | undefined {
  const { token } = link;
  if (token === undefined) return undefined;
  const sender = progressSender(link, token);
  // MCP wants each notification's progress above the last: a report counts its round, and a guard-rail or question
  // event in between goes halfway from the last value to the next whole round.
  let last = 0;
  let reminders: NodeJS.Timeout | undefined;
  const stopReminding = () => {
    clearInterval(reminders);
    reminders = undefined;
  };
  link.signal.addEventListener('abort', stopReminding, { once: true });

  const push = (total: number, message: string, meta: Record<string, unknown> | undefined) =>
    sender.push({ progress: last, total, message, ...(meta === undefined ? {} : { _meta: meta }) });

  /**
   * While a run waits for an answer, the question again every `reminderMs`: a client that times a call out unless
   * progress comes (the SDK's `resetTimeoutOnProgress`) keeps waiting. The k-th reminder goes 1/(k+1) of the way on
   * from the question's value towards the next whole round, so a wait of weeks never runs out of room below it.
   */
  const remindOf = (question: Extract<RalphProgressEvent, { type: 'question-asked' }>) => {
    const reminderMs = link.reminderMs;
    if (reminderMs === undefined || link.signal.aborted) return;
    const base = last;
    const gap = Math.floor(base) + 1 - base;
    const askedAt = Date.now();
    let count = 0;
    reminders = setInterval(() => {
      count += 1;
      last = base + gap * (1 - 1 / (count + 1));
      push(
        question.maxRounds,
        stillWaitingText(question, Date.now() - askedAt, RALPH_ANSWER_TOOL),
        undefined,
      );
    }, reminderMs);
    reminders.unref?.();
  };

  return {
    onProgress: (event) => {
      const message = progressMessage(event);
      if (message === null) return;
      stopReminding();
      last = event.type === 'report-accepted' ? event.round : last + (Math.floor(last) + 1 - last) / 2;
      push(event.maxRounds, message, progressMeta(event));
      if (event.type === 'question-asked') remindOf(event);
    },
    async delivered() {
      stopReminding();
      await sender.delivered();
    },
  };
}
