import { errorText } from '../contract/error-text.js';
import { createPgPool, type PgPool } from './pg-pool.js';

/** A fleet failure the CLI prints as one line and exits 1 for: the database unreachable, a worker id taken. */
export class FleetError extends Error {
  override readonly name = 'FleetError';
}

/** The database URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** The one-line reason of a connection failure (pg's errors of a refused connection have an empty message). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const text = errorText(error);
  if (text !== '' && text !== 'Error') return text;
  return typeof code === 'string' ? code : 'unknown error';
}

/**
 * Checks that the database answers before DBOS is started (which would otherwise retry for a long while): a
 * FleetError naming the URL and the reason when it does not. Resolves with whether the database exists: one that does
 * not exist yet is fine where it may be created (DBOS creates it on first launch). `andThen` asks more of a database
 * that exists, on the same connection.
 */
export async function assertDatabaseReachable(
  databaseUrl: string,
  what: string,
  andThen?: (pool: PgPool) => Promise<void>,
): Promise<boolean> {
  let pool: PgPool;
  try {
    pool = createPgPool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  } catch (error) {
    throw new FleetError(`${what}: bad --database-url ${redactedUrl(databaseUrl)}: ${reasonOf(error)}`);
  }
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    if ((error as { code?: unknown }).code === '3D000') return false;
    throw new FleetError(
      `${what}: cannot reach the database at ${redactedUrl(databaseUrl)}: ${reasonOf(error)}`,
    );
  }
  try {
    // On the same connection: a second one would find the first still counted by the server, its backend exiting.
    await andThen?.(pool);
    return true;
  } finally {
    await pool.end().catch(() => {});
  }
}

/** DBOS's lines about the database connection: the worker's own heartbeat says it once ("lost the database"). */
const CONNECTION_TROUBLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection terminated|connection failed|the database system is/i;

/** How long a DBOS line already written is not written again (its loops repeat every second or so). */
const REPEAT_MS = 60_000;

/**
 * A DBOS logger that keeps the worker's stderr to the lines that matter: warnings and errors, one line each, each
 * at most once a minute, and none of those about the database connection, which the worker reports itself, nor
 * those the worker says are `expected` (a cancelled run's outcome not recorded).
 */
export function stderrLogger(
  prefix: string,
  write: (line: string) => void,
  expected: (line: string) => boolean = () => false,
) {
  const written = new Map<string, number>();
  const line = (level: string, entry: unknown) => {
    const text =
      entry instanceof Error ? entry.message : typeof entry === 'string' ? entry : JSON.stringify(entry);
    const first = text.split('\n')[0] ?? '';
    if (CONNECTION_TROUBLE.test(first) || expected(first)) return;
    const key = `${level}:${first.replace(/\d+/g, '#')}`;
    const now = Date.now();
    if (now - (written.get(key) ?? Number.NEGATIVE_INFINITY) < REPEAT_MS) return;
    written.set(key, now);
    write(`${prefix}: dbos ${level}: ${first}`);
  };
  return {
    info() {},
    debug() {},
    warn: (entry: unknown) => line('warning', entry),
    error: (entry: unknown) => line('error', entry),
  };
}
