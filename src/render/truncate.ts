import { TRUNCATION_MARKER } from '../contract/messages.js';

/**
 * Bounds `text` to `maxChars` UTF-16 units, the marker included. A cut text is a prefix of the original followed
 * by the marker; the cut never splits a surrogate pair.
 */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let keep = Math.max(0, maxChars - TRUNCATION_MARKER.length);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + TRUNCATION_MARKER;
}
