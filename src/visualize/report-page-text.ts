// Text helpers of the run page: everything a run says is untrusted (an agent wrote the summaries), so it reaches the
// page only through these.

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * The text (or a number, which a recording may hold as anything) as HTML that shows it literally, in element content
 * and in quoted attribute values alike.
 */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/**
 * A value as JSON that is safe inside a `<script type="application/json">` element: no `<` survives, so neither
 * `</script>` nor `<!--` in a summary can end or change the element; JSON.parse reads `\u003c` back as `<`.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A time since the run started, as `+m:ss.s` (or `+h:mm:ss` past an hour). */
export function formatOffset(ms: number): string {
  const tenths = Math.max(0, Math.round(ms / 100));
  const hours = Math.floor(tenths / 36_000);
  const minutes = Math.floor((tenths % 36_000) / 600);
  const seconds = (tenths % 600) / 10;
  if (hours > 0) return `+${hours}:${pad(minutes)}:${pad(Math.floor(seconds))}`;
  return `+${minutes}:${seconds < 10 ? '0' : ''}${seconds.toFixed(1)}`;
}

/** A duration as a person reads it: `850 ms`, `12.3 s`, `4 min 5 s`, `1 h 2 min`. */
export function formatDuration(ms: number): string {
  const clamped = Math.max(0, ms);
  if (clamped < 1_000) return `${Math.round(clamped)} ms`;
  if (clamped < 60_000) return `${(clamped / 1_000).toFixed(1)} s`;
  const seconds = Math.round(clamped / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
}

/** The wall-clock time `ms` after `startedAt`, as ISO 8601, or undefined when `startedAt` is no time. */
export function wallClock(startedAt: string, ms: number): string | undefined {
  const start = Date.parse(startedAt);
  return Number.isNaN(start) ? undefined : new Date(start + ms).toISOString();
}

const pad = (n: number): string => String(n).padStart(2, '0');
