import { RalphError } from './errors.js';

/** The longest duration a guard rail takes: setTimeout's maximum delay (2^31 − 1 ms, about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647;

/** Each unit a duration may use, longest first, with its length in milliseconds. */
const UNITS = [
  ['d', 86_400_000n],
  ['h', 3_600_000n],
  ['m', 60_000n],
  ['s', 1_000n],
  ['ms', 1n],
] as const;

const UNIT_MS = new Map<string, bigint>(UNITS);
const UNIT_RANK = new Map<string, number>(UNITS.map(([unit], rank) => [unit, rank]));

/** One `<number><unit>` part, white space allowed before it; `ms` is tried before `m` so `5ms` is not `5m` + `s`. */
const PART = /\s*(\d+)(?:\.(\d+))?(ms|d|h|m|s)/y;

/** Why a text is not a duration: the refusal names the flag and the rule it breaks. */
function refuse(flag: string, rule: string, text: string): never {
  throw new RalphError({ code: 'refused', message: `${flag} must ${rule} (got ${JSON.stringify(text)})` });
}

/** The milliseconds a sequence of parts adds up to, exactly (BigInt: a hundred digits cannot overflow it). */
function partsToMs(body: string): { ms: bigint; whole: boolean } | undefined {
  if (/^\d+$/.test(body)) return { ms: BigInt(body) * 1_000n, whole: true };
  let total = 0n;
  let whole = true;
  let lastRank = -1;
  let at = 0;
  while (at < body.length) {
    PART.lastIndex = at;
    const match = PART.exec(body);
    if (match === null) return undefined;
    // The number and the unit always take part in a match; only the fraction may be absent.
    const [, integer, fraction = '', unit] = match as unknown as [string, string, string | undefined, string];
    const rank = UNIT_RANK.get(unit) as number;
    // Longest unit first, each once: `30m1h` or `1m1m` is more likely a typo than a meant sum.
    if (rank <= lastRank) return undefined;
    lastRank = rank;
    // A missing fraction is '': a scale of 1, and BigInt('') is 0n.
    const scale = 10n ** BigInt(fraction.length);
    const scaled = (BigInt(integer) * scale + BigInt(fraction)) * (UNIT_MS.get(unit) as bigint);
    if (scaled % scale !== 0n) whole = false;
    total += scaled / scale;
    at = PART.lastIndex;
  }
  return { ms: total, whole };
}

/**
 * Reads a duration given to `flag` (named in refusals, e.g. `--max-time`) and returns it in milliseconds.
 * Accepts `1500ms`, `90s`, `30m`, `2h`, `1d` and combinations longest unit first such as `1h30m` or `1h 30m`
 * (case-insensitive, spaces optional); decimals such as `1.5h` when they come to whole milliseconds. A bare
 * positive integer means seconds (`90` is `90s`). Refuses, as a `refused` RalphError naming the flag and the
 * rule, anything else: empty text, `soon`, zero, a negative, a fraction of a millisecond, or more than `maxMs`
 * (by default MAX_DURATION_MS, setTimeout's maximum, about 24.8 days: a guard rail's timer; an age such as `ralph
 * prune --older-than` takes longer ones).
 */
export function parseDuration(text: string, flag: string, maxMs = MAX_DURATION_MS): number {
  const body = String(text).trim().toLowerCase();
  const negative = body.startsWith('-');
  const unsigned = negative ? body.slice(1).trimStart() : body;
  const parsed = unsigned === '' ? undefined : partsToMs(unsigned);
  if (parsed === undefined) refuse(flag, 'be a duration such as 90s, 30m or 2h', text);
  if (negative || parsed.ms === 0n) refuse(flag, 'be more than 0', text);
  if (!parsed.whole) refuse(flag, 'be a whole number of milliseconds', text);
  if (parsed.ms > BigInt(maxMs)) refuse(flag, `be at most ${formatDuration(maxMs)}`, text);
  return Number(parsed.ms);
}

/**
 * A duration as people read it, exact to the millisecond and accepted back by parseDuration: its non-zero
 * parts, longest unit first, separated by spaces (`30m`, `1h 30m`, `1s 500ms`, `24d 20h 31m 23s 647ms`);
 * `0ms` for zero. Fractions of a millisecond are rounded (a measured duration may have them); a negative reads
 * as `-` and its length. Throws a RangeError for NaN and the infinities.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms))
    throw new RangeError(`a duration must be a finite number of milliseconds (got ${ms})`);
  const rounded = Math.round(Math.abs(ms));
  if (rounded === 0) return '0ms';
  let left = BigInt(rounded);
  const parts: string[] = [];
  for (const [unit, length] of UNITS) {
    const count = left / length;
    left %= length;
    if (count > 0n) parts.push(`${count}${unit}`);
  }
  return `${ms < 0 ? '-' : ''}${parts.join(' ')}`;
}
