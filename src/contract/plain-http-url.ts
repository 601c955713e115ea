/**
 * Whether `value` is an http(s) URL with no credential in it: what a link ralph writes where others read it (a pull
 * request's report link) may be, whoever gave it (the command line, a fleet row).
 */
export function isPlainHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
  );
}
