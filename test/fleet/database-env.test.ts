import { describe, expect, it } from 'vitest';
import { takeDatabaseSettings, urlWithDatabaseEnv } from '../../src/fleet/database-env.js';

describe("a worker's database settings leave its environment for its URL", () => {
  it('fills what the URL leaves out from PG*, as pg would read them, and never overrides the URL', () => {
    const env = { PGUSER: 'ralph', PGPASSWORD: 'p@ss word', PGPORT: '6543', PGSSLMODE: 'require' };
    expect(urlWithDatabaseEnv('postgres://db.example/fleet', env)).toBe(
      'postgres://ralph:p%40ss%20word@db.example:6543/fleet?sslmode=require',
    );
    expect(urlWithDatabaseEnv('postgres://me:mine@db.example:5432/fleet?sslmode=disable', env)).toBe(
      'postgres://me:mine@db.example:5432/fleet?sslmode=disable',
    );
  });

  it('a socket folder in PGHOST goes in ?host=, and PGDATABASE names a database the URL does not', () => {
    expect(urlWithDatabaseEnv('postgres:///', { PGHOST: '/var/run/postgresql', PGDATABASE: 'fleet' })).toBe(
      'postgres:///fleet?host=%2Fvar%2Frun%2Fpostgresql',
    );
  });

  it('removes RALPH_DATABASE_URL, DBOS_* database URLs and every PG* variable, and nothing else', () => {
    const env: NodeJS.ProcessEnv = {
      RALPH_DATABASE_URL: 'postgres://a/b',
      DBOS_SYSTEM_DATABASE_URL: 'postgres://a/b',
      PGPASSWORD: 'secret',
      PGAPPNAME: 'x',
      PATH: '/usr/bin',
      RALPH_DEPTH: '1',
    };
    expect(takeDatabaseSettings('postgres://me@h/db', env)).toBe('postgres://me:secret@h/db');
    expect(env).toEqual({ PATH: '/usr/bin', RALPH_DEPTH: '1' });
  });
});
