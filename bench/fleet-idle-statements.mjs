// The idle worker's statements, counted (issue 35, item 3): one `ralph worker` of the build in DIR alone on a throwaway
// Postgres (fsync on), its client closed; from WARM s after its start (default 5; 62 to be past DBOS's first minute
// of schedule polls), log_statement = all for S s: transactions/s (pg_stat_database) and statements/s, grouped.
// Run: node bench/fleet-idle-statements.mjs DIR [S] [WARM]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = process.argv[2];
const S = Number(process.argv[3] ?? 30);
const { startTestPostgres } = await tsImport('../test/support/postgres.ts', import.meta.url);
const pg = await startTestPostgres({ fsync: true });
const url = pg.url.replace(/\/ralph$/, '/idle');
const { createRalphFleet } = await import(pathToFileURL(join(root, 'dist/fleet.js')).href);
const { createPgPool } = await import(pathToFileURL(join(root, 'dist/fleet/pg-pool.js')).href);
const fleet = await createRalphFleet({ databaseUrl: url });
await fleet.close();
const child = spawn(
  process.execPath,
  [join(root, 'dist/hosts/cli/main.js'), 'worker', '--allow-agent-command', '--worker-id', 'w'],
  { env: { ...process.env, RALPH_DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'pipe'] },
);
let tail = '';
await new Promise((r) =>
  child.stderr.on('data', (c) => {
    tail += c;
    if (tail.includes('taking runs')) r();
  }),
);
const pool = createPgPool({ connectionString: url, max: 1 });
const dd = (await pool.query('SHOW data_directory')).rows[0].data_directory;
const logPath = join(dirname(dd), 'log');
await sleep(Number(process.argv[4] ?? 5) * 1000);
const x = async () =>
  Number(
    (await pool.query("SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = 'idle'"))
      .rows[0].n,
  );
await pool.query("ALTER SYSTEM SET log_statement = 'all'");
await pool.query('SELECT pg_reload_conf()');
await sleep(500);
const from = readFileSync(logPath, 'utf8').length;
const x0 = await x();
await sleep(S * 1000);
const x1 = await x();
const text = readFileSync(logPath, 'utf8').slice(from);
const stmts = text.split('\n').filter((l) => l.includes('LOG:  statement:') || l.includes('LOG:  execute'));
const groups = new Map();
for (const l of stmts) {
  const k = l
    .replace(/^.*?LOG: {2}/, '')
    .replace(/\s+/g, ' ')
    .slice(0, 90);
  groups.set(k, (groups.get(k) ?? 0) + 1);
}
console.log(`tx/s ${((x1 - x0 - 1) / S).toFixed(2)}  statements/s ${(stmts.length / S).toFixed(2)}`);
for (const [k, n] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(n, k);
child.kill('SIGTERM');
await pool.end();
await pg.destroy();
