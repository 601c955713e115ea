import { formatDuration } from '../contract/duration.js';

/** An agent's word that its round ended on a usage or rate limit, and when the limit resets (null: it did not say). */
export interface UsageLimit {
  /** What the agent said, as it said it (one line). */
  said: string;
  resetsAt: Date | null;
}

/** The error a round that hit a usage limit rejects with: its message says so, and when the limit resets. */
export class UsageLimitError extends Error {
  /** When the limit resets, or null when the agent did not say. */
  readonly resetsAt: Date | null;
  /** How long from when the limit was recognised until it resets (ms), or null when the agent did not say. */
  readonly retryInMs: number | null;

  constructor(agent: string, limit: UsageLimit, now: Date = new Date()) {
    const when =
      limit.resetsAt === null
        ? 'it gave no reset time'
        : `it resets at ${limit.resetsAt.toISOString()} (in ${formatDuration(wholeSeconds(limit.resetsAt.getTime() - now.getTime()))})`;
    super(`${agent} hit a usage or rate limit: ${limit.said}; ${when}`);
    this.name = 'UsageLimitError';
    this.resetsAt = limit.resetsAt;
    this.retryInMs = limit.resetsAt === null ? null : Math.max(0, limit.resetsAt.getTime() - now.getTime());
  }
}

// "in 2h 5m", not "in 2h 4m 59s 999ms": a reset given as "in 2 hours 5 minutes" is read a few ms before this runs.
const wholeSeconds = (ms: number): number => Math.max(0, Math.round(ms / 1000) * 1000);

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 500);

/** The next time of day `hour:minute` (local time) after `now`. */
function nextTimeOfDay(hour: number, minute: number, now: Date): Date {
  const at = new Date(now);
  at.setHours(hour, minute, 0, 0);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}

/** `resets 5pm`, `resets at 5:30 pm`, `resets 17:00`: the next such time of day; null when there is none. */
function resetTimeOfDay(text: string, now: Date): Date | null {
  const match = /resets?(?: at)?\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?/i.exec(text);
  if (match === null) return null;
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const half = match[3]?.toLowerCase();
  if (half === undefined && match[2] === undefined) return null;
  if (half === 'pm' && hour < 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return null;
  return nextTimeOfDay(hour, minute, now);
}

/** `try again in 1 day 2 hours 3 minutes` (or seconds): now plus that; null when there is none. */
function tryAgainIn(text: string, now: Date): Date | null {
  const match =
    /(?:try again|retry|resets?) in ((?:\s*\d+\s*(?:days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|[dhms])\b,?(?:\s*and)?)+)/i.exec(
      text,
    );
  if (match === null) return null;
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
  let ms = 0;
  for (const part of (match[1] as string).matchAll(/(\d+)\s*([dhms])/gi))
    ms += Number(part[1]) * (unit[(part[2] as string).toLowerCase()] ?? 0);
  return ms > 0 ? new Date(now.getTime() + ms) : null;
}

/** A `retry-after` header: seconds, or an HTTP date; null when it is neither. */
export function retryAfterOf(header: string | undefined, now: Date = new Date()): Date | null {
  if (header === undefined) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return new Date(now.getTime() + Number(trimmed) * 1_000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : new Date(date);
}

/**
 * Claude Code's limit results: `Claude AI usage limit reached|<epoch seconds>`, `5-hour limit reached ∙ resets
 * 5pm`, `You've hit your limit · resets 3am`, and an API error of status 429 (`rate_limit_error`); null for any
 * other text.
 */
export function claudeLimitOf(text: string, now: Date = new Date()): UsageLimit | null {
  const epoch = /usage limit reached\|(\d{9,})/i.exec(text);
  if (epoch !== null) return { said: oneLine(text), resetsAt: new Date(Number(epoch[1]) * 1_000) };
  if (
    /(usage|session|weekly|\d+-hour) limit|hit your limit|limit reached|rate_limit_error|\b429\b/i.test(text)
  )
    return { said: oneLine(text), resetsAt: resetTimeOfDay(text, now) ?? tryAgainIn(text, now) };
  return null;
}

/** Codex's limit errors: `You've hit your usage limit … try again in 2 hours`, and a status of 429; else null. */
export function codexLimitOf(text: string, now: Date = new Date()): UsageLimit | null {
  if (!/usage limit|rate limit|too many requests|\b429\b/i.test(text)) return null;
  return { said: oneLine(text), resetsAt: tryAgainIn(text, now) ?? resetTimeOfDay(text, now) };
}
