import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresBin, startTestPostgres } from '../support/postgres.js';

const NO_POSTGRES = (await postgresBin()) === undefined ? 'Postgres is not installed' : undefined;

/** Whether a process with this pid runs: a zombie (exited, not yet reaped by this machine's init) does not. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe.skipIf(NO_POSTGRES !== undefined)('the tests’ throwaway Postgres', { timeout: 60_000 }, () => {
  it('a cluster whose test process was SIGKILLed is stopped and removed by the next test that starts one', async () => {
    // A test process that starts a cluster, prints its port, and waits to be killed.
    const script = `
      import { startTestPostgres } from ${JSON.stringify(join(import.meta.dirname, '../support/postgres.ts'))};
      const pg = await startTestPostgres();
      process.stdout.write(JSON.stringify({ port: pg.port }) + '\\n');
      setInterval(() => {}, 1000);
    `;
    // One process (node with tsx's loader), so that SIGKILL kills the process that owns the cluster.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      child.once('exit', (code) =>
        reject(new Error(`the test process exited (${code}) before its cluster started`)),
      );
    });
    const { port } = JSON.parse(line) as { port: number };
    const serverPid = Number(
      execFileSync('sh', [
        '-c',
        `ps -eo pid,args | grep "postgres -D" | grep -- "-p ${port} " | grep -v grep`,
      ])
        .toString()
        .trim()
        .split(/\s+/)[0],
    );
    const dir = /-k (\S+)/.exec(
      execFileSync('ps', ['-o', 'args=', '-p', String(serverPid)]).toString(),
    )?.[1] as string;
    expect(alive(serverPid)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // No exit handler ran: the server is still up, an orphan.
    expect(alive(serverPid)).toBe(true);

    const next = await startTestPostgres();
    try {
      expect(alive(serverPid)).toBe(false);
      expect(existsSync(dir)).toBe(false);
    } finally {
      await next.destroy();
    }
  });
});
