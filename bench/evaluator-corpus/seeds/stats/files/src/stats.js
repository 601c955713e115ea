/** The arithmetic mean of a list of numbers. */
export function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
