import { createRequire } from 'node:module';

/** The part of a `pg` pool the lease table uses. */
export interface PgPool {
  query<Row = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'connect', listener: (client: PgPoolClient) => void): unknown;
}

/** One `pg` connection: a session, whose session locks hold until it ends. */
/** One connection of a pool, for a transaction: back to the pool with `release`. */
export interface PgPoolClient {
  query: PgPool['query'];
  release(): void;
}

/** A pool whose connections can hold a transaction (node-postgres's Pool). */
export interface PgTransactionPool extends PgPool {
  connect(): Promise<PgPoolClient>;
}

export interface PgSession extends PgPool {
  connect(): Promise<unknown>;
}

/** The options of a `pg` pool the lease table sets. */
interface PgPoolOptions {
  connectionString: string;
  max?: number;
  connectionTimeoutMillis?: number;
  idleTimeoutMillis?: number;
  /** What pg_stat_activity shows of the pool's connections. */
  application_name?: string;
}

/**
 * The `pg` driver the DBOS SDK itself depends on, resolved from the SDK's own folder, so the fleet adds no dependency
 * of its own and talks to Postgres with exactly the driver DBOS uses.
 */
function pgDriver() {
  const here = createRequire(import.meta.url);
  const fromSdk = createRequire(here.resolve('@dbos-inc/dbos-sdk'));
  return fromSdk('pg') as {
    Pool: new (options: PgPoolOptions) => PgPool;
    Client: new (options: Omit<PgPoolOptions, 'max' | 'idleTimeoutMillis'>) => PgSession;
  };
}

/** A `pg` pool (of DBOS's driver). */
export function createPgPool(options: PgPoolOptions): PgTransactionPool {
  return new (pgDriver().Pool)(options) as PgTransactionPool;
}

/**
 * A `pg` connection of its own (not connected yet), for what must stay on one session: a pool closes a connection
 * idle for a while (10 s by default), and a session lock with it.
 */
export function createPgSession(options: {
  connectionString: string;
  connectionTimeoutMillis?: number;
}): PgSession {
  return new (pgDriver().Client)(options);
}
