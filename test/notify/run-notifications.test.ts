import { afterEach, describe, expect, it } from 'vitest';
import {
  howToAnswer,
  howToAnswerWithTool,
  questionNotificationText,
  type RalphProgressEvent,
} from '../../src/index.js';
import { notificationSchema } from '../../src/notify/notification.js';
import { createNotifier } from '../../src/notify/notifier.js';
import { runNotifications } from '../../src/notify/run-notifications.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';

const receivers: NotifyReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

const QUICK = { attempts: 3, timeoutMs: 2_000, backoffMs: 50 };

const asked: RalphProgressEvent = {
  type: 'question-asked',
  runId: 'run-9',
  round: 2,
  maxRounds: 5,
  question: 'which database should the migration target?',
  waitMs: 3_600_000,
};

/** A receiver taking the chat shape `shape` (or the JSON), and the run's notifications sent to it. */
async function notesTo(shape: 'json' | 'slack' | 'discord', howTo?: (runId: string) => string[]) {
  const hook = await startReceiver();
  receivers.push(hook);
  const notifier = createNotifier(
    { urls: [new URL(hook.url)], commands: [] },
    { policy: QUICK, shapeOf: () => shape, warn: () => {} },
  );
  const notes = runNotifications(notifier, howTo === undefined ? {} : { howToAnswer: howTo });
  return { hook, notifier, notes };
}

describe('run.question: a run that starts waiting for an answer is notified', () => {
  it('the JSON carries the question, its round and how to answer (ralph answer by default)', async () => {
    const { hook, notifier, notes } = await notesTo('json');
    notes.onProgress(asked);
    await notifier.close();

    const [note] = hook.accepted().map((body) => notificationSchema.parse(body));
    expect(note).toMatchObject({
      source: 'ralph',
      event: 'run.question',
      runId: 'run-9',
      status: 'waiting',
      round: 2,
      rounds: 2,
      question: asked.type === 'question-asked' ? asked.question : '',
      text: questionNotificationText(2, 'which database should the migration target?', 3_600_000, [
        howToAnswer('run-9'),
      ]),
    });
    expect(note?.text).toContain('The run waits up to 1h for an answer.');
  });

  it("Slack and Discord get the headline, the question and the host's ways to answer", async () => {
    const ways = (runId: string) => [howToAnswerWithTool(runId), howToAnswer(runId)];
    const slack = await notesTo('slack', ways);
    const discord = await notesTo('discord', ways);
    for (const { notes, notifier } of [slack, discord]) {
      notes.onProgress(asked);
      await notifier.close();
    }

    const message = [
      'ralph run-9: waiting for an answer after 2 rounds',
      'Round 2 is blocked and asks: which database should the migration target?',
      'The run waits up to 1h for an answer.',
      howToAnswerWithTool('run-9'),
      howToAnswer('run-9'),
    ].join('\n');
    expect(slack.hook.accepted()).toEqual([{ text: message }]);
    expect(discord.hook.accepted()).toEqual([{ content: message, allowed_mentions: { parse: [] } }]);
  });

  it('the answer and the end of the wait send nothing of their own', async () => {
    const { hook, notifier, notes } = await notesTo('json');
    notes.onProgress({
      type: 'question-answered',
      runId: 'run-9',
      round: 2,
      maxRounds: 5,
      answer: 'postgres',
    });
    notes.onProgress({
      type: 'question-unanswered',
      runId: 'run-9',
      round: 2,
      maxRounds: 5,
      reason: 'timed-out',
      waitMs: 3_600_000,
    });
    await notifier.close();
    expect(hook.requests).toEqual([]);
  });
});
