import { RalphError } from '../contract/errors.js';
import {
  freeConnections,
  type ServerConnectionFigures,
  serverFullRefused,
} from '../contract/fleet-connection-messages.js';
import { MIN_DB_CONNECTIONS } from './constants.js';
import { createPgPool } from './pg-pool.js';
import { maintenanceUrl } from './setup-lock.js';

/**
 * The server's connection figures. Only client backends count against `max_connections` (autovacuum, WAL senders and
 * background workers have slots of their own); every session sees every row of pg_stat_activity, if not its query.
 */
const FIGURES = `SELECT current_setting('max_connections')::integer AS max_connections,
  current_setting('superuser_reserved_connections')::integer AS superuser_reserved,
  coalesce(current_setting('reserved_connections', true), '0')::integer AS reserved,
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::integer AS in_use`;

interface FiguresRow {
  max_connections: number;
  superuser_reserved: number;
  reserved: number;
  in_use: number;
}

/**
 * Asks the server of `databaseUrl` for its connection figures, on a connection of its own (to the server's `postgres`
 * database when the fleet's is not there yet), which it does not count: it is closed before the worker opens its own.
 */
export async function serverConnections(
  databaseUrl: string,
  databaseExists: boolean,
): Promise<ServerConnectionFigures> {
  const url = databaseExists ? databaseUrl : maintenanceUrl(databaseUrl).url;
  const pool = createPgPool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  try {
    const { rows } = await pool.query<FiguresRow>(FIGURES);
    const row = rows[0] as FiguresRow;
    return {
      maxConnections: row.max_connections,
      superuserReserved: row.superuser_reserved,
      reserved: row.reserved,
      inUse: row.in_use - 1,
    };
  } finally {
    await pool.end().catch(() => {});
  }
}

/**
 * Refuses a worker (a RalphError, refused) whose `needed` connections the server cannot take now, reserved slots
 * left to superusers: better at start, with the figures, than a run failing later on "too many clients". A check,
 * not a reservation: workers starting at the same moment each see the same room.
 */
export async function assertRoomForWorker(
  databaseUrl: string,
  databaseExists: boolean,
  needed: number,
): Promise<void> {
  const figures = await serverConnections(databaseUrl, databaseExists);
  if (freeConnections(figures) >= needed) return;
  throw new RalphError({ code: 'refused', message: serverFullRefused(needed, MIN_DB_CONNECTIONS, figures) });
}
