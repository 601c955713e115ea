/**
 * The environment variables that name or unlock a fleet's database: ralph's own, DBOS's, and libpq's `PG*` (which the
 * `pg` driver reads for whatever the URL leaves out, the password among them).
 */
export const DATABASE_ENV = /^(RALPH_DATABASE_URL|DBOS_SYSTEM_DATABASE_URL|DBOS_DATABASE_URL|PG[A-Z_]*)$/;

/** The variables that name a fleet's database and nothing else: no agent of any ralph host needs them. */
const FLEET_URLS = ['RALPH_DATABASE_URL', 'DBOS_SYSTEM_DATABASE_URL', 'DBOS_DATABASE_URL'] as const;

/**
 * Takes the fleet's database URLs out of a `ralph run` or `ralph mcp` process's environment, so that its agents cannot
 * queue runs on a fleet. The `PG*` variables stay: a workspace's own tests may need them.
 */
export function removeFleetUrls(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of FLEET_URLS) delete env[name];
}

/** The `PG*` variables `pg` would read for a part the URL leaves out, and the URL part each one fills. */
const FOLDED = [
  ['PGUSER', 'username'],
  ['PGPASSWORD', 'password'],
  ['PGHOST', 'hostname'],
  ['PGPORT', 'port'],
  ['PGDATABASE', 'pathname'],
] as const;

/** The query parameters `pg` reads from the URL in place of `PGSSLMODE` and `PGCONNECT_TIMEOUT`. */
const FOLDED_PARAMS = [
  ['PGSSLMODE', 'sslmode'],
  ['PGCONNECT_TIMEOUT', 'connect_timeout'],
] as const;

/** Sets one part of a URL from a `PG*` value where the URL leaves it out. */
function fill(url: URL, part: (typeof FOLDED)[number][1], value: string): void {
  if (part === 'hostname') {
    // A socket folder (PGHOST=/var/run/postgresql) goes in ?host=, as pg reads it there.
    if (url.hostname !== '' || url.searchParams.has('host')) return;
    if (value.startsWith('/')) url.searchParams.set('host', value);
    else url.hostname = value;
    return;
  }
  if (part === 'pathname') {
    if (url.pathname === '' || url.pathname === '/') url.pathname = `/${encodeURIComponent(value)}`;
    return;
  }
  if (url[part] === '') url[part] = part === 'port' ? value : encodeURIComponent(value);
}

/**
 * The URL a worker connects with once the database settings are out of its environment: `databaseUrl` with what it
 * leaves out filled from the `PG*` variables, as `pg` would have read them. An unparsable URL is returned as given.
 */
export function urlWithDatabaseEnv(databaseUrl: string, env: NodeJS.ProcessEnv): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return databaseUrl;
  }
  for (const [name, part] of FOLDED) {
    const value = env[name];
    if (value !== undefined && value !== '') fill(url, part, value);
  }
  for (const [name, param] of FOLDED_PARAMS) {
    const value = env[name];
    if (value !== undefined && value !== '' && !url.searchParams.has(param))
      url.searchParams.set(param, value);
  }
  return url.toString();
}

/**
 * Takes the database settings out of a worker's environment (so no agent, verify command or reaper it starts inherits
 * them: an agent that had the URL could queue any command on every worker) and returns the URL to connect with, the
 * `PG*` settings folded in.
 */
export function takeDatabaseSettings(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const url = urlWithDatabaseEnv(databaseUrl, env);
  for (const name of Object.keys(env)) if (DATABASE_ENV.test(name)) delete env[name];
  return url;
}
