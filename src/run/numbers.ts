const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A number option as written: a decimal literal becomes its number, anything else NaN. Whether the number is
 * acceptable is left to the tool's own checks, so `--max-rounds 0` and `--max-rounds x` answer with the
 * reference's message rather than one of the CLI's.
 */
export function parseNumberOption(text: string): number {
  const trimmed = text.trim();
  return DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
}
