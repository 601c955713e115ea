import { mkdtempSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { signalGroup } from './process-group.js';
import { type HostIdentity, procStat, thisHost } from './process-identity.js';

/** The prefix of a round's temporary folder (mkdtemp adds six characters). */
export const ROUND_FOLDER_PREFIX = 'ralph-round-';

/** The file in a round folder that says which host made it and which process group runs the round. */
export const ROUND_OWNER_FILE = 'owner.json';

const processRecord = z.object({ pid: z.number().int().positive(), startTime: z.string().min(1) });

/** What a round folder's owner file records: the host, and once it runs the round's process group. */
const roundOwner = z.object({
  bootId: z.string(),
  pidNamespace: z.string(),
  host: processRecord,
  group: processRecord.optional(),
});

/** What a round folder's owner file records. */
export type RoundOwner = z.infer<typeof roundOwner>;

/** A round's temporary folder in os.tmpdir(). */
export interface RoundFolder {
  dir: string;
  /**
   * Records the round's process group, so a sweep after this host's death can kill it. Synchronous (a small
   * overwrite, some tens of µs), so it can run in the tick the group is born in and leave no turn of the event loop in which a
   * SIGKILLed host's agent would go unrecorded. Never throws.
   */
  recordGroup(pid: number): void;
  /**
   * Writes a file of the round into the folder (synchronous: a few tens of µs, cheaper than a trip through the
   * thread pool), so that `remove` knows it.
   */
  writeFile(name: string, text: string): string;
  /** The path of a file the round's child may write into the folder, so that `remove` knows it. */
  path(name: string): string;
  /** Removes the folder and all in it, synchronously. Never throws. */
  remove(): void;
}

const ownerOf = (host: HostIdentity): RoundOwner => ({
  bootId: host.bootId,
  pidNamespace: host.pidNamespace,
  host: { pid: host.pid, startTime: host.startTime },
});

/** Unlinks `file`; a file that is not there is no error. */
function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Makes a round folder that records its owner. The host is written before anything is started, so a folder left
 * by a host killed at any later moment says whose it was; the group is added in the tick it starts in. A sweep that
 * reads a record while it is rewritten finds no JSON and leaves the folder alone, as it does every folder it cannot
 * judge, so the rewrite needs no rename. Where /proc cannot identify processes (not Linux) nothing is recorded
 * and nothing will be swept.
 *
 * Every step is synchronous. A round's file work is a handful of small syscalls (about 0.1 ms in all); through
 * fs/promises each is a trip through libuv's thread pool and a turn of the event loop, and the round folder cost
 * over 1 ms a round that way (bench/per-round-parts.mjs).
 */
export function makeRoundFolder(): RoundFolder {
  const dir = mkdtempSync(join(tmpdir(), ROUND_FOLDER_PREFIX));
  const ownerFile = join(dir, ROUND_OWNER_FILE);
  /** The files this folder is known to hold, so removing it is an unlink each and a rmdir. */
  const files: string[] = [];
  const host = thisHost();
  const remove = () => {
    try {
      for (const file of files) unlinkIfThere(file);
      rmdirSync(dir);
    } catch {
      // A file the child added (or removed): the general way, which never throws.
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    if (host !== null) {
      writeFileSync(ownerFile, JSON.stringify(ownerOf(host)));
      files.push(ownerFile);
    }
  } catch (error) {
    remove();
    throw error;
  }
  return {
    dir,
    recordGroup(pid) {
      const startTime = procStat(pid)?.startTime;
      if (host === null || startTime === undefined) return;
      try {
        writeFileSync(ownerFile, JSON.stringify({ ...ownerOf(host), group: { pid, startTime } }));
      } catch {
        // The round runs all the same; only a sweep after this host's SIGKILL would miss its group.
      }
    },
    writeFile(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      files.push(path);
      return path;
    },
    path(name) {
      const path = join(dir, name);
      files.push(path);
      return path;
    },
    remove,
  };
}

/** True while the recorded process runs: the same pid with the same start time, and not a zombie. */
const stillRuns = (record: { pid: number; startTime: string }): boolean => {
  const stat = procStat(record.pid);
  return stat !== null && stat.startTime === record.startTime && stat.state !== 'Z';
};

/** Reads a round folder's owner; undefined when the folder is not ours to judge (not mine, no or a bad record). */
async function ownerRecorded(dir: string): Promise<RoundOwner | undefined> {
  try {
    const folder = await lstat(dir);
    // Another user may plant a folder in a shared /tmp naming our processes: only our own folders are judged.
    if (!folder.isDirectory() || folder.uid !== process.getuid?.()) return undefined;
    const parsed = roundOwner.safeParse(JSON.parse(await readFile(join(dir, ROUND_OWNER_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The live group leaders whose environment names a file in the round folder `dir` (RALPH_SCHEMA_FILE and
 * RALPH_REPORT_FILE do): the round's agent, found without a record. Processes of other users cannot be read and
 * are never counted.
 */
async function leadersNaming(dir: string): Promise<number[]> {
  const marker = Buffer.from(`=${dir}/`);
  const leaders: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`).catch(() => null);
    if (environ === null || !environ.includes(marker)) continue;
    const stat = procStat(entry);
    if (stat !== null && stat.state !== 'Z' && stat.pgrp === Number(entry)) leaders.push(Number(entry));
  }
  return leaders;
}

/** Cleans up one round folder if its host is dead; true when it was removed. */
async function sweepFolder(dir: string, me: HostIdentity): Promise<boolean> {
  const owner = await ownerRecorded(dir);
  // Pids from another pid namespace (another container sharing /tmp) say nothing about processes here.
  if (owner === undefined || owner.pidNamespace !== me.pidNamespace) return false;
  if (owner.bootId === me.bootId) {
    if (stillRuns(owner.host)) return false;
    // The leader still runs (start time matches), so the group is the round's: a reused pid would start later.
    const { group } = owner;
    if (group === undefined) {
      // The host died between the spawn and writing the group's record (a busy machine can pause it right there):
      // the round's processes are found by the folder their environment names.
      for (const pid of await leadersNaming(dir)) signalGroup(pid, 'SIGKILL');
    } else if (stillRuns(group) && procStat(group.pid)?.pgrp === group.pid) {
      signalGroup(group.pid, 'SIGKILL');
    }
  }
  // From another boot, every process it names is long gone: only the folder is left to remove.
  await rm(dir, { recursive: true, force: true });
  return true;
}

/**
 * Removes the round folders in `dir` whose host is dead (its pid gone, or reused by a process that started later),
 * first SIGKILLing the round's process group when its leader is still the recorded process. This is what cleans up
 * after a host killed by SIGKILL, which runs no exit hook. Folders of live hosts, of other users, of another pid
 * namespace, and folders without a readable record are never touched. Never throws; resolves with how many
 * folders it removed.
 */
export async function sweepOrphanedRounds(dir: string = tmpdir()): Promise<number> {
  const me = thisHost();
  if (me === null) return 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const rounds = names.filter((name) => /^ralph-round-[A-Za-z0-9]{6}$/.test(name));
  const removed = await Promise.all(
    rounds.map((name) => sweepFolder(join(dir, name), me).catch(() => false)),
  );
  return removed.filter(Boolean).length;
}

const swept = new Map<string, Promise<number>>();

/** Sweeps os.tmpdir() once per process (per temp folder, as TMPDIR may change): the first round's start waits. */
export function sweepOrphanedRoundsOnce(): Promise<number> {
  const dir = tmpdir();
  let sweep = swept.get(dir);
  if (sweep === undefined) {
    sweep = sweepOrphanedRounds(dir);
    swept.set(dir, sweep);
  }
  return sweep;
}
