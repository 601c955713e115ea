/** The texts of a worker's Postgres connections: how many it may hold, and the server that has no room for them. */

/** What the server said of its connections, as a worker asks before it starts. */
export interface ServerConnectionFigures {
  /** `max_connections`. */
  maxConnections: number;
  /** `superuser_reserved_connections`. */
  superuserReserved: number;
  /** `reserved_connections` (Postgres 16 and later; 0 before). */
  reserved: number;
  /** The client connections open (pg_stat_activity), the asking one not counted. */
  inUse: number;
}

/** How many connections the server can still give to a client that is not a superuser. */
export function freeConnections(figures: ServerConnectionFigures): number {
  return figures.maxConnections - figures.superuserReserved - figures.reserved - figures.inUse;
}

/** Refusal: `ralph worker --db-connections` (or the library's `dbConnections`) below the least a worker runs on. */
export function dbConnectionsRefused(given: string, least: number): string {
  return `ralph worker --db-connections must be a whole number of at least ${least} (got ${given}): DBOS keeps one connection for its notifications, and every query needs another`;
}

/**
 * Refusal: the server cannot take the worker's connections (checked before anything starts), with the figures it
 * was asked for and what to change.
 */
export function serverFullRefused(needed: number, least: number, figures: ServerConnectionFigures): string {
  const free = Math.max(0, freeConnections(figures));
  const reserved = figures.reserved > 0 ? `, less ${figures.reserved} reserved (reserved_connections)` : '';
  return (
    `ralph worker: the database server has room for ${free} more connection${free === 1 ? '' : 's'} and this ` +
    `worker needs ${needed} (--db-connections ${needed}): max_connections ${figures.maxConnections}, ` +
    `less ${figures.superuserReserved} reserved for superusers (superuser_reserved_connections)${reserved}, ` +
    `less ${figures.inUse} in use (pg_stat_activity). Raise max_connections, stop some of the server's clients, or ` +
    `give this worker fewer (--db-connections, at least ${least}); the worker did not start`
  );
}
