/**
 * What one round's agent said it used, as far as it said: every field is optional, since each agent reports a
 * different part (Claude Code its cost, tokens, turns and duration; Codex and the AI SDK their tokens; a command
 * agent what it writes to its usage file). Plain data, so it is recorded with the run.
 */
export interface RalphUsage {
  /** What the round cost, in US dollars, as the agent computed it. */
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens read from the model's prompt cache. */
  cacheReadTokens?: number;
  /** Input tokens written to the model's prompt cache. */
  cacheWriteTokens?: number;
  /** Model turns (requests) the round took. */
  turns?: number;
  /** How long the agent said the round took (ms). */
  durationMs?: number;
}

/** The fields of a usage, in the order they are shown. */
export const USAGE_FIELDS = [
  'costUsd',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'turns',
  'durationMs',
] as const satisfies readonly (keyof RalphUsage)[];

// Number.isFinite is false for anything that is no number (it does not coerce).
const isAmount = (value: unknown): value is number => Number.isFinite(value) && (value as number) >= 0;

/** Micro-dollars in a dollar: money is kept to a millionth of a dollar, the unit sums are exact in. */
export const MICRO_USD_PER_USD = 1_000_000;

/** Dollars as whole micro-dollars (rounded to the nearest). */
export function toMicroUsd(usd: number): number {
  return Math.round(usd * MICRO_USD_PER_USD);
}

/** Whole micro-dollars as dollars: the double nearest the decimal amount, so `1.2` and never `1.2000000000000002`. */
export function fromMicroUsd(microUsd: number): number {
  return microUsd / MICRO_USD_PER_USD;
}

/** Dollars rounded to the micro-dollar, so that a figure carries no float noise. */
export function roundUsd(usd: number): number {
  return fromMicroUsd(toMicroUsd(usd));
}

/**
 * The exact sum of dollar amounts, to the micro-dollar: each is made whole micro-dollars, those are added (integers
 * are exact far past any budget), and the sum turned back into dollars. $0.40 three times is $1.2, not
 * 1.2000000000000002. Every total of money goes through it.
 */
export function sumUsd(...amounts: readonly number[]): number {
  return sumUsdOf(amounts);
}

/** sumUsd of a list: a list of any length (spread into sumUsd, a long one would overflow the call stack). */
export function sumUsdOf(amounts: readonly number[]): number {
  let micro = 0;
  for (const usd of amounts) micro += toMicroUsd(usd);
  return fromMicroUsd(micro);
}

/**
 * A usage of the fields of `value` that are finite non-negative numbers, or null when none is: what an agent
 * wrote is read, never trusted (a negative or non-numeric field is left out). The cost is kept to the micro-dollar.
 */
export function usageOf(value: unknown): RalphUsage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const usage: RalphUsage = {};
  for (const field of USAGE_FIELDS) {
    const amount = record[field];
    if (isAmount(amount)) usage[field] = field === 'costUsd' ? roundUsd(amount) : amount;
  }
  return Object.keys(usage).length === 0 ? null : usage;
}

/**
 * What a failed round's agent said it used, carried as `usage` on the error its round failed with; null when it said
 * nothing (or the error carries no usage): a round counts what its agent said whether or not a report came.
 */
export function usageOfFailure(error: unknown): RalphUsage | null {
  return typeof error === 'object' && error !== null ? usageOf((error as { usage?: unknown }).usage) : null;
}

/**
 * The sum of two usages: a field is in the sum when either has it (an agent that reports no cost for a round
 * does not erase what earlier rounds cost); null only when both are null. The cost is summed exactly (`sumUsd`).
 */
export function addUsage(a: RalphUsage | null, b: RalphUsage | null): RalphUsage | null {
  if (a === null) return b === null ? null : { ...b };
  if (b === null) return { ...a };
  const sum: RalphUsage = {};
  for (const field of USAGE_FIELDS) {
    const x = a[field];
    const y = b[field];
    if (x === undefined && y === undefined) continue;
    sum[field] = field === 'costUsd' ? sumUsd(x ?? 0, y ?? 0) : (x ?? 0) + (y ?? 0);
  }
  return sum;
}

/**
 * `$12.35`, `$0.05`, `$0.0123`, `$0.000135`: dollars to the cent, below a dollar to a hundredth of a cent, and
 * below a cent to a millionth of a dollar (a round on a small model costs fractions of a cent), trailing zeros
 * after the cents dropped.
 */
export function costText(costUsd: number): string {
  if (costUsd >= 1) return `$${costUsd.toFixed(2)}`;
  const digits = costUsd >= 0.01 ? 4 : 6;
  return `$${costUsd.toFixed(digits).replace(/(\.\d\d)(\d*?)0+$/, '$1$2')}`;
}

/** `1,234`. */
const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * A usage in a few words, as progress lines show it: `$0.0123 · 1,200 in / 340 out tokens · 3 turns`; the cache
 * tokens and the duration are left to the recording and the report.
 */
export function usageText(usage: RalphUsage): string {
  const parts: string[] = [];
  if (usage.costUsd !== undefined) parts.push(costText(usage.costUsd));
  const tokens: string[] = [];
  if (usage.inputTokens !== undefined) tokens.push(`${count(usage.inputTokens)} in`);
  if (usage.outputTokens !== undefined) tokens.push(`${count(usage.outputTokens)} out`);
  if (tokens.length > 0) parts.push(`${tokens.join(' / ')} tokens`);
  if (usage.turns !== undefined) parts.push(usage.turns === 1 ? '1 turn' : `${count(usage.turns)} turns`);
  return parts.join(' · ');
}

/**
 * What a progress line adds to an accepted report when its agent said what it used: ` [this round; run total]`,
 * e.g. ` [$0.0123 · 1,200 in / 340 out tokens · 3 turns; run total $0.0456 · 2,400 in / 700 out tokens · 6 turns]`;
 * '' when nothing is known, so a run whose agents say nothing prints the reference's line.
 */
export function usageSuffix(usage: RalphUsage | undefined, total: RalphUsage | undefined): string {
  const round = usage === undefined ? '' : usageText(usage);
  const all = total === undefined ? '' : usageText(total);
  if (round === '' && all === '') return '';
  if (all === '') return ` [${round}]`;
  return round === '' ? ` [run total ${all}]` : ` [${round}; run total ${all}]`;
}
