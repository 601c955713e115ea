/**
 * A URL's user information in a text: `scheme://userinfo@`, or `userinfo@` with no scheme (scp-like
 * `user:password@host:path`), after the start, white space, a quote, `=` or `(`. The user information runs to the
 * last `@` before the path, as git reads it (a password may hold an `@`).
 */
const USERINFO = /(^|[\s'"=(])([a-z][a-z0-9+.-]*:\/\/)?([^\s/'"]+)@/gi;

/** A scheme whose URLs give a token as their bare user name (`https://<token>@host/…`). */
const TOKEN_IN_USER = /^https?:\/\/$/i;

/**
 * `text` with the credentials of every URL in it masked: the password of `https://user:password@…`,
 * `ssh://user:password@…` and `user:password@host:path` becomes `***`, and so does the bare user name of an http(s)
 * URL (`https://<token>@host/…`), the way tokens are given. A user name alone elsewhere (`ssh://git@host/…`) stays.
 */
export function maskUrlCredentials(text: string): string {
  return text.replace(USERINFO, (whole, before: string, scheme: string | undefined, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    if (colon >= 0) return `${before}${scheme ?? ''}${userinfo.slice(0, colon)}:***@`;
    if (scheme !== undefined && TOKEN_IN_USER.test(scheme)) return `${before}${scheme}***@`;
    return whole;
  });
}

/**
 * Why a repository URL is refused for the credential it carries, or null when it carries none: a password
 * (`https://user:password@…`, `ssh://user:password@…`, `user:password@host:path`), or any user name of an https://
 * URL (how a token is given). A user name alone is no credential for ssh (`git@host:path`, `ssh://git@host/…`).
 */
export function urlCredentialsProblem(url: string): string | null {
  return maskUrlCredentials(url) === url
    ? null
    : 'it carries a credential (a user name or password before the host): the URL is stored in the fleet ' +
        'database and shown to whoever reads a run, so give it without one; workers reach the remote with their own ' +
        'credentials (a git credential helper, ssh keys)';
}
