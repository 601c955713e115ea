/** The most characters JSON writes for one character of a string: a control character's `\u001b`. */
export const WIDEST_ESCAPE = 6;

/** `text` cut to `units` UTF-16 units from the end it keeps, less half a character left at the cut. */
function cutTo(text: string, units: number, keep: 'start' | 'end'): string {
  const count = Math.max(0, units);
  if (keep === 'start') {
    const kept = text.slice(0, count);
    return /[\uD800-\uDBFF]$/.test(kept) ? kept.slice(0, -1) : kept;
  }
  const kept = count === 0 ? '' : text.slice(-count);
  return /^[\uDC00-\uDFFF]/.test(kept) ? kept.slice(1) : kept;
}

/** The first `units` UTF-16 units of `text`, less a high surrogate left at the end (half a character). */
export const wholeStart = (text: string, units: number): string => cutTo(text, units, 'start');

/**
 * The longest part of `text` (its start or its end, as `keep` says) for which `overOf` (how many characters what is
 * built of it is over its cap) is at most 0; '' when none is. JSON escapes make one character worth up to six, so a
 * cut by the excess could cut escaped ones and keep less than fits: each pass cuts only what the excess must take at
 * the least. Never half a character: it would be escaped to six and reach an agent as no character at all.
 */
export function shortenToFit(text: string, overOf: (kept: string) => number, keep: 'start' | 'end'): string {
  let kept = text;
  let over = overOf(kept);
  while (over > 0 && kept.length > 0) {
    kept = cutTo(kept, kept.length - Math.ceil(over / WIDEST_ESCAPE), keep);
    over = overOf(kept);
  }
  return kept;
}
