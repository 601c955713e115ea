import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUND_OWNER_FILE, sweepOrphanedRounds, takeRoundFolder } from '../../src/process/round-folder.js';
import { isRunning, until, useScratch } from '../support/processes.js';
import { startHost } from '../support/round-hosts.js';

const s = useScratch();
/** The package root (where `--import tsx` resolves) and the sweeping host script. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const sweepHost = fileURLToPath(new URL('../fixtures/hosts/sweep-host.ts', import.meta.url));

/** A TMPDIR for one test, so the sweep never sees another test's or another program's folders. */
async function ownTmp(): Promise<string> {
  const tmp = join(s.logs, 'tmp');
  await mkdir(tmp);
  return tmp;
}

const roundFolders = async (tmp: string) =>
  (await readdir(tmp)).filter((name) => name.startsWith('ralph-round-'));

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
const startTimeOf = (pid: number): string => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] as string;
};
const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

/** SIGKILLs the group `pgid` and waits until its leader is gone. */
async function killGroup(pgid: number): Promise<void> {
  process.kill(-pgid, 'SIGKILL');
  await until(() => !isRunning(pgid), `the group ${pgid} to die`);
}

/** A process in a process group of its own that only sleeps; the test kills it. */
async function sleeper(): Promise<number> {
  const child = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  child.unref();
  await writeFile(s.pidLog, `${child.pid}\n`, { flag: 'a' });
  return child.pid as number;
}

/** A process in a process group of its own whose environment names the round folder `dir`, as a round's agent's does. */
async function agentOf(dir: string): Promise<number> {
  const agent = spawn('sleep', ['1000'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, RALPH_REPORT_FILE: join(dir, 'report.json') },
  });
  await new Promise((resolve) => agent.once('spawn', resolve));
  agent.unref();
  await writeFile(s.pidLog, `${agent.pid}\n`, { flag: 'a' });
  return agent.pid as number;
}

describe('a host killed with SIGKILL mid-round leaves its agent and round folder until the next start', () => {
  it('the next start kills the orphaned group and removes the folder', async () => {
    const tmp = await ownTmp();
    const place = { tmp, workspace: s.workspace, pidLog: s.pidLog };
    const killed = startHost('wait', place, ['spawn-grandchild.mjs', 'hang']);
    await until(async () => (await s.pids()).length >= 2, 'the agent and its grandchild to start');
    const [agent, grandchild] = (await s.pids()) as [number, number];
    const [folder] = await roundFolders(tmp);
    // The round folder records the host, then the agent's group in the tick the host spawned it; the agent runs
    // meanwhile, so its pid can be logged a moment before the record is written (the row below, without a record,
    // covers a host killed in that moment).
    const ownerOf = () => {
      try {
        return JSON.parse(readFileSync(join(tmp, folder as string, ROUND_OWNER_FILE), 'utf8'));
      } catch {
        return {};
      }
    };
    await until(() => ownerOf().group !== undefined, 'the group to be recorded');
    const owner = ownerOf();
    expect(owner).toMatchObject({
      host: { pid: killed.pid },
      group: { pid: agent, startTime: startTimeOf(agent) },
    });

    killed.kill('SIGKILL');
    expect((await killed.ended).signal).toBe('SIGKILL');
    // What SIGKILL leaves: no handler ran, so the agent's group and the round folder are still there.
    expect(isRunning(agent)).toBe(true);
    expect(isRunning(grandchild)).toBe(true);
    expect(await roundFolders(tmp)).toHaveLength(1);

    const next = startHost('finish', place, ['report-file.mjs']);
    const { code, stdout, stderr } = await next.ended;
    expect(code, stderr).toBe(0);
    expect(stdout).toBe('complete\n');
    await until(
      () => !isRunning(agent) && !isRunning(grandchild),
      'the orphaned agent and grandchild to die',
    );
    expect(await roundFolders(tmp)).toEqual([]);
  });

  it('the folder and the agent of a host that still runs are never touched', async () => {
    const tmp = await ownTmp();
    const place = { tmp, workspace: s.workspace, pidLog: s.pidLog };
    const running = startHost('wait', place, ['hang.mjs']);
    try {
      await until(async () => (await s.pids()).length >= 1, 'the agent to start');
      const [agent] = (await s.pids()) as [number];
      const [folder] = await roundFolders(tmp);

      const next = startHost('finish', place, ['report-file.mjs']);
      expect((await next.ended).code).toBe(0);
      expect(isRunning(agent)).toBe(true);
      expect(await roundFolders(tmp)).toEqual([folder]);
    } finally {
      running.kill('SIGKILL');
      await running.ended;
      const [agent] = await s.pids();
      if (agent !== undefined && isRunning(agent)) await killGroup(agent);
    }
  });
});

describe('a round folder is kept as a spare for the next round, never past its host', () => {
  const spares = async (tmp: string) =>
    (await readdir(tmp)).filter((name) => name.startsWith('ralph-spare-'));

  it('a host that ends leaves no round folder and no spare', async () => {
    const tmp = await ownTmp();
    const done = startHost('finish', { tmp, workspace: s.workspace, pidLog: s.pidLog }, ['report-file.mjs']);
    const { code, stderr } = await done.ended;
    expect(code, stderr).toBe(0);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(await spares(tmp)).toEqual([]);
  });

  it("a dead host's spare is removed by the sweep; a live host's is not", async () => {
    const tmp = await ownTmp();
    const dead = join(tmp, 'ralph-spare-Dead01');
    const live = join(tmp, 'ralph-spare-Live01');
    await mkdir(dead);
    await mkdir(live);
    const owner = { bootId: bootId(), pidNamespace: readlinkSync('/proc/self/ns/pid') };
    await writeFile(
      join(dead, ROUND_OWNER_FILE),
      JSON.stringify({ ...owner, host: { pid: 999_999_999, startTime: '1' } }),
    );
    await writeFile(
      join(live, ROUND_OWNER_FILE),
      JSON.stringify({ ...owner, host: { pid: process.pid, startTime: startTimeOf(process.pid) } }),
    );
    await sweepOrphanedRounds(tmp);
    expect(await spares(tmp)).toEqual(['ralph-spare-Live01']);
  });
});

describe("a round folder's reuse", () => {
  // A schema text of this test's own, so that no other test's round takes these folders as spares.
  const schema = `{"test":"round-folder reuse ${process.pid}"}\n`;

  it('a released folder serves the next round, renamed, with what its round left in it but the report', () => {
    const first = takeRoundFolder(schema);
    writeFileSync(join(first.dir, 'left-behind'), 'x');
    writeFileSync(first.reportFile, '{}');
    first.release();
    const next = takeRoundFolder(schema);
    try {
      expect(next.dir).not.toBe(first.dir);
      expect(existsSync(join(next.dir, 'left-behind'))).toBe(true);
      expect(existsSync(next.reportFile)).toBe(false);
    } finally {
      next.release({ reuse: false });
    }
  });

  it('a folder released with reuse: false (a sandboxed round) is removed, and serves no later round', () => {
    const first = takeRoundFolder(schema);
    writeFileSync(join(first.dir, 'left-behind'), 'x');
    first.release({ reuse: false });
    expect(existsSync(first.dir)).toBe(false);
    const next = takeRoundFolder(schema);
    try {
      expect(existsSync(join(next.dir, 'left-behind'))).toBe(false);
    } finally {
      next.release({ reuse: false });
    }
  });
});

describe('the sweep judges a round folder by the owner it records', () => {
  /** Makes a round folder in `tmp` whose owner file says `owner`. */
  async function folderOwnedBy(tmp: string, owner: unknown, name = 'ralph-round-AbC123'): Promise<string> {
    const dir = join(tmp, name);
    await mkdir(dir);
    await writeFile(join(dir, ROUND_OWNER_FILE), JSON.stringify(owner));
    return dir;
  }
  /** The pid namespace this process (and so the sweep) runs in, as /proc shows it. */
  const pidNamespace = () => readlinkSync('/proc/self/ns/pid');
  /** The record of a host that died (its pid names no process) while its round's group, `group`, ran. */
  const deadHostWith = (group: { pid: number; startTime: string }) => ({
    bootId: bootId(),
    pidNamespace: pidNamespace(),
    host: { pid: 999_999_999, startTime: '1' },
    group,
  });

  it('a host pid now used by another process (its start time differs) is a dead host; a group leader that is not the recorded process is not signalled', async () => {
    const tmp = await ownTmp();
    const other = await sleeper();
    await folderOwnedBy(tmp, {
      bootId: bootId(),
      pidNamespace: pidNamespace(),
      host: { pid: other, startTime: '1' },
      group: { pid: other, startTime: '1' },
    });
    await sweepOrphanedRounds(tmp);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(isRunning(other)).toBe(true);
    await killGroup(other);
  });

  it('a live host with the recorded start time keeps its folder and its group', async () => {
    const tmp = await ownTmp();
    const group = await sleeper();
    await folderOwnedBy(tmp, {
      bootId: bootId(),
      pidNamespace: pidNamespace(),
      host: { pid: process.pid, startTime: startTimeOf(process.pid) },
      group: { pid: group, startTime: startTimeOf(group) },
    });
    await sweepOrphanedRounds(tmp);
    expect(await roundFolders(tmp)).toHaveLength(1);
    expect(isRunning(group)).toBe(true);
    await killGroup(group);
  });

  it('a folder from before a reboot is removed, and the pids it names are not signalled', async () => {
    const tmp = await ownTmp();
    const group = await sleeper();
    await folderOwnedBy(tmp, {
      bootId: 'another-boot',
      pidNamespace: pidNamespace(),
      host: { pid: 999_999_999, startTime: '1' },
      group: { pid: group, startTime: startTimeOf(group) },
    });
    await sweepOrphanedRounds(tmp);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(isRunning(group)).toBe(true);
    await killGroup(group);
  });

  it("a dead host whose group leader is the recorded process and the folder's agent: the group is killed", async () => {
    const tmp = await ownTmp();
    const group = await agentOf(join(tmp, 'ralph-round-AbC123'));
    await folderOwnedBy(tmp, deadHostWith({ pid: group, startTime: startTimeOf(group) }));
    await sweepOrphanedRounds(tmp);
    // The sweep resolves only once the group it killed is gone: what a resumed round relies on.
    expect(isRunning(group)).toBe(false);
    expect(await roundFolders(tmp)).toEqual([]);
  });

  it("a dead host that died before recording its group: the round's agent is found by the folder its environment names, and killed", async () => {
    const tmp = await ownTmp();
    const agent = await agentOf(join(tmp, 'ralph-round-NoGrp1'));
    const bystander = await sleeper();
    await folderOwnedBy(
      tmp,
      { bootId: bootId(), pidNamespace: pidNamespace(), host: { pid: 999_999_999, startTime: '1' } },
      'ralph-round-NoGrp1',
    );
    await sweepOrphanedRounds(tmp);
    expect(isRunning(agent)).toBe(false);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(isRunning(bystander)).toBe(true);
    await killGroup(bystander);
  });

  it("a dead host whose record names an earlier round's group, long dead (a reused folder): the agent its environment names is killed", async () => {
    const tmp = await ownTmp();
    const agent = await agentOf(join(tmp, 'ralph-round-Reuse1'));
    await folderOwnedBy(tmp, deadHostWith({ pid: 999_999_998, startTime: '1' }), 'ralph-round-Reuse1');
    await sweepOrphanedRounds(tmp);
    expect(isRunning(agent)).toBe(false);
    expect(await roundFolders(tmp)).toEqual([]);
  });

  it('a recorded group led by a live process of the same user that is not the agent of the folder is not signalled', async () => {
    const tmp = await ownTmp();
    const bystander = await sleeper();
    await folderOwnedBy(tmp, deadHostWith({ pid: bystander, startTime: startTimeOf(bystander) }));
    await sweepOrphanedRounds(tmp);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(isRunning(bystander)).toBe(true);
    await killGroup(bystander);
  });

  it('a recorded group pid of 1 (kill(-1) signals every process the user may) is never signalled', async () => {
    const tmp = await ownTmp();
    const bystander = await sleeper();
    await folderOwnedBy(tmp, deadHostWith({ pid: 1, startTime: startTimeOf(1) }));
    await sweepOrphanedRounds(tmp);
    expect(await roundFolders(tmp)).toEqual([]);
    expect(isRunning(bystander)).toBe(true);
    await killGroup(bystander);
  });

  it("the sweeping process's own group is never signalled, even when its environment names the folder", async () => {
    const tmp = await ownTmp();
    const dir = join(tmp, 'ralph-round-OwnGrp');
    const sweeper = spawn(process.execPath, ['--import', 'tsx', sweepHost, tmp], {
      cwd: root,
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, RALPH_REPORT_FILE: join(dir, 'report.json') },
    });
    await new Promise((resolve) => sweeper.once('spawn', resolve));
    await writeFile(s.pidLog, `${sweeper.pid}\n`, { flag: 'a' });
    let stdout = '';
    sweeper.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      sweeper.once('close', (code, signal) => resolve([code, signal])),
    );
    const pid = sweeper.pid as number;
    await folderOwnedBy(tmp, deadHostWith({ pid, startTime: startTimeOf(pid) }), 'ralph-round-OwnGrp');
    sweeper.stdin.end('go\n');
    expect(await ended).toEqual([0, null]);
    expect(stdout).toBe('1\n');
    expect(await roundFolders(tmp)).toEqual([]);
  });

  it('leaves alone what it cannot judge: no owner file, an unreadable one, another pid namespace, other names', async () => {
    const tmp = await ownTmp();
    await mkdir(join(tmp, 'ralph-round-NoOwnr'));
    await folderOwnedBy(tmp, 'not an owner', 'ralph-round-Garbag');
    await folderOwnedBy(
      tmp,
      {
        bootId: bootId(),
        pidNamespace: 'pid:[1]',
        host: { pid: 999_999_999, startTime: '1' },
      },
      'ralph-round-OtherN',
    );
    await folderOwnedBy(
      tmp,
      { bootId: bootId(), pidNamespace: pidNamespace(), host: { pid: 999_999_999, startTime: '1' } },
      'ralph-ws-notARound',
    );
    await sweepOrphanedRounds(tmp);
    expect((await readdir(tmp)).sort()).toEqual([
      'ralph-round-Garbag',
      'ralph-round-NoOwnr',
      'ralph-round-OtherN',
      'ralph-ws-notARound',
    ]);
  });
});
