import { RalphError } from '../contract/errors.js';

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/**
 * A `--notify` URL, or a `refused` RalphError: only http:// and https:// URLs are POSTed to, and none with a user name
 * or password in it (fetch refuses those; the refusal does not repeat the URL, whose password it would print).
 */
export function notifyUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(`--notify takes an http:// or https:// URL (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse(
      `--notify takes an http:// or https:// URL, not ${url.protocol} (got ${JSON.stringify(text)})`,
    );
  if (url.username !== '' || url.password !== '')
    throw refuse(
      `--notify takes a URL without a user name or password (${url.origin}): put the receiver's token in its path or query`,
    );
  return url;
}
