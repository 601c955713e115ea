import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryPolicy } from '../../src/notify/delivery-policy.js';
import { type Notification, notification, notificationSchema } from '../../src/notify/notification.js';
import { createNotifier } from '../../src/notify/notifier.js';
import {
  closedPortUrl,
  type NotifyReceiver,
  type ReceiverAnswer,
  startReceiver,
} from '../support/notify-receiver.js';
import { until } from '../support/processes.js';

const receivers: NotifyReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(...script: ReceiverAnswer[]): Promise<NotifyReceiver> {
  const started = await startReceiver(script);
  receivers.push(started);
  return started;
}

/** Short attempts, so a hanging receiver costs the test a moment; the rules are the default policy's. */
const QUICK: DeliveryPolicy = { attempts: 3, timeoutMs: 2_000, backoffMs: 50 };

const ended = (runId = 'run-1'): Notification =>
  notification({ event: 'run.ended', runId, status: 'complete', text: 'Ralph complete: …', rounds: 2 });

function notifierTo(urls: string[], options: { policy?: DeliveryPolicy; maxQueued?: number } = {}) {
  const warnings: string[] = [];
  const notifier = createNotifier(
    { urls: urls.map((url) => new URL(url)), commands: [] },
    { policy: options.policy ?? QUICK, warn: (line) => warnings.push(line), ...options },
  );
  return { notifier, warnings };
}

describe('a notification reaches a receiver that refuses, then hangs, then accepts', () => {
  it('arrives once, as the notification JSON, after three attempts, with nothing said on stderr', async () => {
    const hook = await receiver('refuse', 'hang', 'accept');
    const { notifier, warnings } = notifierTo([hook.url]);

    notifier.send(ended());
    await notifier.close();

    expect(hook.requests.map((request) => request.answer)).toEqual(['refuse', 'hang', 'accept']);
    expect(hook.accepted()).toHaveLength(1);
    const note = notificationSchema.parse(hook.accepted()[0]);
    expect(note).toEqual({ ...ended(), at: note.at });
    expect(hook.requests[2]?.contentType).toBe('application/json');
    expect(warnings).toEqual([]);
  });

  it('in the order they were sent, one after the other', async () => {
    const hook = await receiver('refuse');
    const { notifier } = notifierTo([hook.url]);

    notifier.send(notification({ event: 'run.limit-wait', runId: 'r', status: 'waiting', text: 'waiting' }));
    notifier.send(ended('r'));
    await notifier.close();

    expect(hook.accepted().map((note) => (note as Notification).event)).toEqual([
      'run.limit-wait',
      'run.ended',
    ]);
  });
});

describe('a notification that cannot be delivered is one line, and never more', () => {
  it('a receiver that never listens: three attempts, then one line naming the origin only, never the secret path', async () => {
    const url = await closedPortUrl();
    const { notifier, warnings } = notifierTo([url]);

    notifier.send(ended());
    await notifier.close();

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^ralph: notification run\\.ended to ${new URL(url).origin} not delivered: .+ \\(attempt 3 of 3\\)$`,
      ),
    );
    expect(warnings[0]).not.toContain('secret-token');
  });

  it('a 404 is not tried again (the receiver will not change its mind), a 503 is', async () => {
    const hook = await receiver('refuse', 'missing');
    const { notifier, warnings } = notifierTo([hook.url]);

    notifier.send(ended());
    await notifier.close();

    expect(hook.requests.map((request) => request.answer)).toEqual(['refuse', 'missing']);
    expect(warnings).toEqual([
      `ralph: notification run.ended to ${new URL(hook.url).origin} not delivered: HTTP 404 (attempt 2 of 3)`,
    ]);
  });

  it('close gives up on a receiver that hangs past its bound, with one line, and cuts the connection', async () => {
    const hook = await receiver('hang', 'hang', 'hang');
    const { notifier, warnings } = notifierTo([hook.url], {
      policy: { attempts: 3, timeoutMs: 60_000, backoffMs: 50 },
    });

    notifier.send(ended());
    await notifier.close(300);

    expect(warnings).toEqual(['ralph: gave up on 1 notification not delivered within 300 ms']);
    expect(hook.requests).toHaveLength(1);
    await until(() => hook.hungUp() === 1, 'the sender to close the hanging request');
  });

  it('a queue past its bound drops the newest notification with a line, rather than grow', async () => {
    const hook = await receiver('hang');
    const { notifier, warnings } = notifierTo([hook.url], {
      policy: { attempts: 1, timeoutMs: 60_000, backoffMs: 50 },
      maxQueued: 1,
    });

    notifier.send(ended('first'));
    notifier.send(ended('second'));
    await notifier.close(200);

    expect(warnings[0]).toBe(
      `ralph: notification run.ended to ${new URL(hook.url).origin} dropped: 1 still waiting to go`,
    );
  });
});

describe('a chat webhook gets its own shape', () => {
  it('a URL taken for Slack gets {text}, one taken for Discord {content}: the headline, then the text', async () => {
    const [slack, discord] = [await receiver(), await receiver()];
    const notifier = createNotifier(
      { urls: [new URL(slack.url), new URL(discord.url)], commands: [] },
      { policy: QUICK, shapeOf: (url) => (url.href === slack.url ? 'slack' : 'discord'), warn: () => {} },
    );
    notifier.send(ended());
    await notifier.close();
    const message = 'ralph run-1: complete after 2 rounds\nRalph complete: …';
    expect(slack.accepted()).toEqual([{ text: message }]);
    expect(discord.accepted()).toEqual([{ content: message, allowed_mentions: { parse: [] } }]);
  });
});
