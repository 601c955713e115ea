/** The JSON objects of a JSON Lines stream (an agent's event stream), one a line; other lines are skipped. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null) events.push(value as Record<string, unknown>);
    } catch {
      // A line cut by the output bound, or not an event: nothing to read from it.
    }
  }
  return events;
}
