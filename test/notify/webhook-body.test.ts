import { describe, expect, it } from 'vitest';
import { notification } from '../../src/notify/notification.js';
import { chatMessage, webhookBody, webhookShapeOf } from '../../src/notify/webhook-body.js';

const note = notification({
  event: 'run.blocked',
  runId: 'run-7',
  status: 'blocked',
  text: 'Ralph blocked: the worker reported a blocker after 2 rounds.',
  rounds: 2,
  costUsd: 0.125,
  link: '/tmp/run.jsonl',
});

describe('each notification URL gets the body its receiver reads', () => {
  it('Slack incoming webhooks by their host, Discord webhooks by host and path, anything else the JSON', () => {
    expect(webhookShapeOf(new URL('https://hooks.slack.com/services/T0/B0/xyz'))).toBe('slack');
    expect(webhookShapeOf(new URL('https://discord.com/api/webhooks/1/abc'))).toBe('discord');
    expect(webhookShapeOf(new URL('https://discordapp.com/api/webhooks/1/abc'))).toBe('discord');
    expect(webhookShapeOf(new URL('https://discord.com/channels/1'))).toBe('json');
    expect(webhookShapeOf(new URL('https://hooks.slack.com.example.org/services/x'))).toBe('json');
    expect(webhookShapeOf(new URL('http://127.0.0.1:8080/hook'))).toBe('json');
  });

  it('Slack gets {text}, Discord {content} with no pings, a generic receiver the notification itself', () => {
    const message = [
      'ralph run-7: blocked after 2 rounds ($0.13)',
      '/tmp/run.jsonl',
      'Ralph blocked: the worker reported a blocker after 2 rounds.',
    ].join('\n');
    expect(JSON.parse(webhookBody('slack', note))).toEqual({ text: message });
    expect(JSON.parse(webhookBody('discord', note))).toEqual({
      content: message,
      allowed_mentions: { parse: [] },
    });
    expect(JSON.parse(webhookBody('json', note))).toEqual(note);
  });

  it('a chat message is cut to 2000 characters, with the truncation notice', () => {
    const long = chatMessage({ ...note, text: 'x'.repeat(5_000) });
    expect(long).toHaveLength(2000);
    expect(long.endsWith('… [truncated]')).toBe(true);
  });
});
