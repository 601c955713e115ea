/** How many changed files an error names before it counts the rest. */
export const MAX_NAMED_CHANGES = 20;

/**
 * Changed files worded for an error: the first `limit` joined by ', ', then `and N more` for the rest
 * (`a.ts (changed), b.txt (added) and 3 more`); '' when there are none.
 */
export function describeChangedFiles(changes: readonly string[], limit = MAX_NAMED_CHANGES): string {
  const named = changes.slice(0, Math.max(1, limit));
  const rest = changes.length - named.length;
  return rest > 0 ? `${named.join(', ')} and ${rest} more` : named.join(', ');
}
