import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway Postgres cluster in a temp folder, on a free 127.0.0.1 port. */
export interface TestPostgres {
  /** postgres://ralph@127.0.0.1:PORT/ralph (trust auth, a superuser, so DBOS may create its database). */
  url: string;
  port: number;
  /** Stops the server at once (the database is "lost"); `start` brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

/** The bin folder of the newest installed Postgres (Debian's /usr/lib/postgresql/N/bin), or undefined. */
export async function postgresBin(): Promise<string | undefined> {
  const root = '/usr/lib/postgresql';
  const versions = await readdir(root).catch(() => [] as string[]);
  const sorted = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  return sorted.length === 0 ? undefined : join(root, sorted[0] as string, 'bin');
}

/** A port nothing listens on right now (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** The uid and gid of the postgres user, for root (the server refuses to run as root); undefined otherwise. */
async function unprivilegedUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8');
  const entry = passwd.split('\n').find((line) => line.startsWith('postgres:'));
  if (entry !== undefined) {
    const [, , uid, gid] = entry.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error('running as root and there is no postgres user to run the server as');
}

const OWNER_FILE = 'owner.pid';

/** Whether a process with this pid is alive (a pid of another user's process counts as alive). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and removes the clusters of test processes that died without stopping theirs (SIGKILL, a killed `vitest`:
 * no exit handler runs), found by the pid each cluster's folder names, so a killed run leaves no server behind for
 * long. A cluster of a live process, or one whose folder names none, is left alone.
 */
async function sweepAbandonedClusters(bin: string, as: { uid?: number; gid?: number }): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names.filter((entry) => entry.startsWith('ralph-pg-'))) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || isAlive(owner)) continue;
    await run(join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'immediate', '-D', join(dir, 'data')], as).catch(
      () => undefined,
    );
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Starts a fresh cluster: initdb in a temp folder owned by the postgres user (when the tests run as root), then
 * the server on a free loopback port with its socket in that folder. Everything it started is stopped and removed
 * by `destroy`. `fsync` (off by default: the tests need no durability, and it spares the disk) makes each commit
 * wait for its WAL on disk, as a production server does (bench/fleet.mjs measures with it). `maxConnections` (200 by
 * default) is the server's `max_connections`: a small one to see a worker refused for want of room, a large one for
 * bench/fleet.mjs's hundred workers.
 */
export async function startTestPostgres({ fsync = false, maxConnections = 200 } = {}): Promise<TestPostgres> {
  const bin = await postgresBin();
  if (bin === undefined) throw new Error('Postgres is not installed (apt-get install postgresql)');
  const user = await unprivilegedUser();
  const as = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  await sweepAbandonedClusters(bin, as);
  const dir = await mkdtemp(join(tmpdir(), 'ralph-pg-'));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const exec = (file: string, args: string[]) =>
    run(join(bin, file), args, { ...as, cwd: dir, env: { ...process.env, LC_ALL: 'C' } });
  try {
    await exec('initdb', ['-D', data, '-U', 'ralph', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${fsync ? 'on' : 'off'} -c max_connections=${maxConnections}`;
  const start = async () => {
    await exec('pg_ctl', ['start', '-w', '-D', data, '-l', join(dir, 'log'), '-o', options]);
  };
  const stop = async () => {
    await exec('pg_ctl', ['stop', '-w', '-m', 'immediate', '-D', data]).catch(() => undefined);
  };
  try {
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // A test process that exits without its afterAll (an uncaught error, a timeout) still stops its server.
  const onExit = () => {
    try {
      execFileSync(join(bin, 'pg_ctl'), ['stop', '-m', 'immediate', '-D', data], { ...as, stdio: 'ignore' });
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  return {
    url: `postgres://ralph@127.0.0.1:${port}/ralph`,
    port,
    stop,
    start,
    async destroy() {
      process.off('exit', onExit);
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every row of every table of every database of the server `url` (a database's URL on it) names, as text:
 * pg_dumpall's data-only dump, through the server's own `postgres` database.
 */
export async function everyRowOf(url: string): Promise<string> {
  const bin = await postgresBin();
  if (bin === undefined) throw new Error('no Postgres programs on this machine');
  const server = url.replace(/\/[^/?]+(\?.*)?$/, '/postgres$1');
  const { stdout } = await run(join(bin, 'pg_dumpall'), ['--data-only', `--dbname=${server}`], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}
