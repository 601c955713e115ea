/** How many candidate spans `lastJsonObject` tries before it gives up on pathological output. */
const MAX_ATTEMPTS = 512;

/** Index of the last position in ascending `positions` that is below `limit`, or -1. */
function lastBelow(positions: number[], limit: number): number {
  let low = 0;
  let high = positions.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((positions[mid] as number) < limit) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

function positionsOf(text: string, char: string): number[] {
  const positions: number[] = [];
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) positions.push(i);
  return positions;
}

/**
 * The last complete JSON object in free text (logs, then a report, perhaps pretty-printed, perhaps followed by more
 * logs), or undefined when there is none. It tries the spans ending at each `}` from the last backwards, and for each
 * the spans starting at each `{` before it, nearest first, so the outermost object wins over the objects inside it.
 * The number of spans tried is bounded, so garbage full of braces costs little.
 */
export function lastJsonObject(text: string): Record<string, unknown> | undefined {
  const opens = positionsOf(text, '{');
  if (opens.length === 0) return undefined;
  const closes = positionsOf(text, '}');
  let attempts = 0;
  for (let c = closes.length - 1; c >= 0; c -= 1) {
    const end = closes[c] as number;
    for (let o = lastBelow(opens, end); o >= 0; o -= 1) {
      const start = opens[o] as number;
      if (++attempts > MAX_ATTEMPTS) return undefined;
      try {
        const value: unknown = JSON.parse(text.slice(start, end + 1));
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          return value as Record<string, unknown>;
        }
      } catch {
        // Not a whole object: an inner brace, or braces in prose. Try the next span.
      }
    }
  }
  return undefined;
}
