/** The run id of `/prefix/<id>` or `/prefix/<id>/suffix`, decoded; undefined when the path is not one. */
export function runIdIn(path: string, prefix: string, suffix = ''): string | undefined {
  if (!path.startsWith(prefix) || !path.endsWith(suffix)) return undefined;
  const raw = path.slice(prefix.length, path.length - suffix.length);
  if (raw === '' || raw.includes('/')) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
