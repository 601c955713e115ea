import { headline, type Notification } from './notification.js';

/** The bodies a notification URL can get: the JSON itself, or a chat service's incoming-webhook message. */
export type WebhookShape = 'json' | 'slack' | 'discord';

/** How long a chat message may be: Discord refuses content past 2000 characters; Slack's text is kept as short. */
const CHAT_MESSAGE_CHARS = 2000;
const CUT = '… [truncated]';

/** The shape a URL gets: Slack's and Discord's incoming webhooks by their host and path, any other the JSON. */
export function webhookShapeOf(url: URL): WebhookShape {
  if (url.hostname === 'hooks.slack.com') return 'slack';
  const discord = url.hostname === 'discord.com' || url.hostname === 'discordapp.com';
  if (discord && url.pathname.startsWith('/api/webhooks/')) return 'discord';
  return 'json';
}

/** The notification as one chat message: its headline, a link when there is one, then as much of its text as fits. */
export function chatMessage(note: Notification): string {
  const head = [headline(note), ...(note.link === undefined ? [] : [note.link])].join('\n');
  const message = `${head}\n${note.text}`;
  if (message.length <= CHAT_MESSAGE_CHARS) return message;
  return `${message.slice(0, CHAT_MESSAGE_CHARS - CUT.length)}${CUT}`;
}

/** The body POSTed for a notification in a shape: Slack `{text}`, Discord `{content}`, otherwise the JSON itself. */
export function webhookBody(shape: WebhookShape, note: Notification): string {
  switch (shape) {
    case 'slack':
      return JSON.stringify({ text: chatMessage(note) });
    case 'discord':
      // No pings: a run's text may quote an agent that wrote @everyone.
      return JSON.stringify({ content: chatMessage(note), allowed_mentions: { parse: [] } });
    case 'json':
      return JSON.stringify(note);
  }
}
