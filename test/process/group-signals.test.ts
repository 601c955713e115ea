import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deathPollDelays, liveMembersOf, untilGroupGone } from '../../src/process/group-signals.js';
import { isRunning, until } from '../support/processes.js';

/** Starts `argv` as the leader of a process group of its own. */
async function group(...argv: [string, ...string[]]): Promise<number> {
  const [program, ...args] = argv;
  const child = spawn(program, args, { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid as number;
}

/** Every member of the group in /proc, zombies included, with its state. */
function membersWithState(pgid: number): { pid: number; state: string }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(pgrp) === pgid ? [{ pid: Number(entry), state: state as string }] : [];
      } catch {
        return [];
      }
    });
}

async function killGroup(pgid: number): Promise<void> {
  process.kill(-pgid, 'SIGKILL');
  await until(() => !isRunning(pgid), 'the group to die');
}

describe('watching a process group die', () => {
  it('looks again after 1 ms, then backs off, doubling, to one look every 100 ms', () => {
    const delays = deathPollDelays();
    expect(Array.from({ length: 9 }, () => delays.next().value)).toEqual([1, 2, 4, 8, 16, 32, 64, 100, 100]);
  });

  it('does not count a zombie as a live member', async () => {
    // The shell starts `sleep 0` and becomes `sleep 1000`, which never reaps it: a zombie in the group.
    const pgid = await group('sh', '-c', 'sleep 0 & exec sleep 1000');
    try {
      await until(() => membersWithState(pgid).some((m) => m.state === 'Z'), 'a zombie in the group');
      expect(await liveMembersOf(pgid)).toEqual([pgid]);
    } finally {
      await killGroup(pgid);
    }
  });

  it('gives up at the deadline while a member lives, and sees the group gone once it died', async () => {
    const pgid = await group('sleep', '1000');
    try {
      expect(await untilGroupGone(pgid, Date.now() + 50)).toBe(false);
      const gone = untilGroupGone(pgid, Date.now() + 60_000);
      process.kill(-pgid, 'SIGKILL');
      expect(await gone).toBe(true);
      expect(await liveMembersOf(pgid)).toEqual([]);
    } finally {
      if (isRunning(pgid)) await killGroup(pgid);
    }
  });
});
