import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { RalphProgressEvent } from '../../contract/types.js';

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

/**
 * The progress of one call. Notifications are chained, so they leave in round order, and before the result goes out
 * the call waits for the last of them and then for a round trip to the client. Waiting for the writes alone is not
 * enough: the SDK's client dispatches a notification one microtask later but a response at once, so a progress
 * notification read in the same chunk as the result reaches a request already answered and is dropped (seen with
 * @modelcontextprotocol/sdk 1.32.2, typescript-sdk issue #2580). The client answers the `ping` only after it has
 * dispatched everything read before it, so once the answer is back the progress has been delivered.
 */
export function callProgress(link: ProgressLink): CallProgress | undefined {
  const { token } = link;
  if (token === undefined) return undefined;
  let sent: Promise<void> = Promise.resolve();
  let unconfirmed = false;
  return {
    onProgress: (event) => {
      if (event.type !== 'report-accepted') return;
      const { status, summary } = event.report;
      const notification: ServerNotification = {
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: event.round,
          total: event.maxRounds,
          message: `Round ${event.round}/${event.maxRounds} reported ${status}: ${summary}`,
        },
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
