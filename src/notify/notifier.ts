import { DEFAULT_DELIVERY, type DeliveryPolicy, longestDelivery } from './delivery-policy.js';
import { postWithRetries } from './http-delivery.js';
import type { Notification } from './notification.js';
import { runNotifyCommand } from './notify-command.js';
import { type WebhookShape, webhookBody, webhookShapeOf } from './webhook-body.js';

/** Where notifications go: URLs POSTed to, and commands run with the JSON on stdin. */
export interface NotifyTargets {
  urls: readonly URL[];
  /** Each an argv, run without a shell. */
  commands: readonly (readonly string[])[];
}

/** How a notifier delivers, beyond its targets. */
export interface NotifierOptions {
  /** Attempts, timeout, backoff (default: DEFAULT_DELIVERY). */
  policy?: DeliveryPolicy;
  /** Where the one line about a notification that could not be delivered goes (default: stderr). */
  warn?: (line: string) => void;
  /** The body shape of a URL (default: by its host, webhookShapeOf). */
  shapeOf?: (url: URL) => WebhookShape;
  /** How many notifications may wait for one target; one more is dropped, with a line (default 32). */
  maxQueued?: number;
}

/** Sends notifications in the background: a send never blocks, and a failure is only a line on stderr. */
export interface Notifier {
  /** Whether there is any target: a run without `--notify` builds no notifications. */
  readonly enabled: boolean;
  /** Queues a notification for every target and returns at once. */
  send(note: Notification): void;
  /**
   * Waits for what is still queued, at most `boundMs` (default: the longest one delivery can take), then gives the
   * rest up with one line and stops them (their processes, their connections), so nothing outlives the host.
   */
  close(boundMs?: number): Promise<void>;
}

/** A target with its own queue: its notifications go one after the other, in the order they were sent. */
interface Target {
  /** How the warning names it: a URL's origin only (a webhook's path is its secret), a command's program. */
  name: string;
  deliver(note: Notification, signal: AbortSignal): Promise<string | null>;
  tail: Promise<void>;
  queued: number;
}

/** A notifier that sends `targets` every notification under `options`; one with no target does nothing. */
export function createNotifier(targets: NotifyTargets, options: NotifierOptions = {}): Notifier {
  const policy = options.policy ?? DEFAULT_DELIVERY;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const shapeOf = options.shapeOf ?? webhookShapeOf;
  const maxQueued = options.maxQueued ?? 32;
  const stop = new AbortController();
  const all: Target[] = [
    ...targets.urls.map((url) => ({
      name: url.origin,
      deliver: (note: Notification, signal: AbortSignal) =>
        postWithRetries(url, webhookBody(shapeOf(url), note), policy, signal),
      tail: Promise.resolve(),
      queued: 0,
    })),
    ...targets.commands.map((argv) => ({
      name: `command ${argv[0] ?? ''}`,
      deliver: (note: Notification, signal: AbortSignal) =>
        runNotifyCommand(argv, JSON.stringify(note), policy.timeoutMs, signal),
      tail: Promise.resolve(),
      queued: 0,
    })),
  ];
  let closed = false;

  function enqueue(target: Target, note: Notification): void {
    if (target.queued >= maxQueued) {
      warn(`ralph: notification ${note.event} to ${target.name} dropped: ${maxQueued} still waiting to go`);
      return;
    }
    target.queued++;
    target.tail = target.tail.then(async () => {
      try {
        if (stop.signal.aborted) return;
        const problem = await target.deliver(note, stop.signal);
        // One given up at close is counted in close's own line.
        if (problem !== null && !stop.signal.aborted)
          warn(`ralph: notification ${note.event} to ${target.name} not delivered: ${problem}`);
      } finally {
        target.queued--;
      }
    });
  }

  return {
    enabled: all.length > 0,
    send(note) {
      if (closed) return;
      for (const target of all) enqueue(target, note);
    },
    async close(boundMs = longestDelivery(policy) + 1_000) {
      closed = true;
      const drained = Promise.all(all.map((target) => target.tail));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), boundMs);
      });
      const outcome = await Promise.race([drained, late]);
      clearTimeout(timer);
      if (outcome !== 'late') return;
      const left = all.reduce((sum, target) => sum + target.queued, 0);
      warn(
        `ralph: gave up on ${left} notification${left === 1 ? '' : 's'} not delivered within ${boundMs} ms`,
      );
      stop.abort();
      await drained;
    },
  };
}
