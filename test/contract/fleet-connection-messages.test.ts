import { describe, expect, it } from 'vitest';
import {
  dbConnectionsRefused,
  freeConnections,
  serverFullRefused,
} from '../../src/contract/fleet-connection-messages.js';

const figures = { maxConnections: 100, superuserReserved: 3, reserved: 0, inUse: 96 };

describe("a worker's connections, as it says them", () => {
  it('counts the free connections as max_connections less every reserved slot and those in use', () => {
    expect(freeConnections(figures)).toBe(1);
    expect(freeConnections({ ...figures, reserved: 2, inUse: 90 })).toBe(5);
    expect(freeConnections({ ...figures, inUse: 99 })).toBe(-2);
  });

  it('refuses a server without room word for word, with the figures', () => {
    expect(serverFullRefused(3, 2, figures)).toBe(
      "ralph worker: the database server has room for 1 more connection and this worker needs 3 (--db-connections 3): max_connections 100, less 3 reserved for superusers (superuser_reserved_connections), less 96 in use (pg_stat_activity). Raise max_connections, stop some of the server's clients, or give this worker fewer (--db-connections, at least 2); the worker did not start",
    );
    expect(serverFullRefused(4, 2, { ...figures, reserved: 2, inUse: 99 })).toBe(
      "ralph worker: the database server has room for 0 more connections and this worker needs 4 (--db-connections 4): max_connections 100, less 3 reserved for superusers (superuser_reserved_connections), less 2 reserved (reserved_connections), less 99 in use (pg_stat_activity). Raise max_connections, stop some of the server's clients, or give this worker fewer (--db-connections, at least 2); the worker did not start",
    );
  });

  it('refuses too few connections word for word', () => {
    expect(dbConnectionsRefused('"1"', 2)).toBe(
      'ralph worker --db-connections must be a whole number of at least 2 (got "1"): DBOS keeps one connection for its notifications, and every query needs another',
    );
  });
});
