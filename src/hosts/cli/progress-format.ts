import { stripControlToLine } from '../../render/terminal-text.js';

/** The longest summary a progress line shows, in characters. */
const SUMMARY_CHARS = 240;

/** One line of a summary, short enough for a progress line, without the control characters an agent put in it. */
export function oneLine(text: string): string {
  const flat = stripControlToLine(text);
  return flat.length <= SUMMARY_CHARS ? flat : `${flat.slice(0, SUMMARY_CHARS - 1)}…`;
}

/** `4.2s`, `3m 07s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${pad(whole % 60)}s`;
  return `${Math.floor(whole / 3600)}h ${pad(Math.floor((whole % 3600) / 60))}m`;
}
