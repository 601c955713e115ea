import { createRequire } from 'node:module';

/** The part of a `pg` pool the lease table uses. */
export interface PgPool {
  query<Row = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The options of a `pg` pool the lease table sets. */
interface PgPoolOptions {
  connectionString: string;
  max?: number;
  connectionTimeoutMillis?: number;
  idleTimeoutMillis?: number;
}

/**
 * A `pg` pool: the driver the DBOS SDK itself depends on, resolved from the SDK's own folder, so the fleet adds no
 * dependency of its own and talks to Postgres with exactly the driver DBOS uses.
 */
export function createPgPool(options: PgPoolOptions): PgPool {
  const here = createRequire(import.meta.url);
  const fromSdk = createRequire(here.resolve('@dbos-inc/dbos-sdk'));
  const pg = fromSdk('pg') as { Pool: new (options: PgPoolOptions) => PgPool };
  return new pg.Pool(options);
}
