import { randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { signalGroup, untilGroupGone } from './group-signals.js';
import { type HostIdentity, procStat, thisHost } from './process-identity.js';

/** How long a sweep waits for a SIGKILLed orphan group to be gone (a process in D state can take a while). */
const SWEEP_KILL_WAIT_MS = 5_000;

/** The prefix of a round's temporary folder (mkdtemp adds six characters). */
export const ROUND_FOLDER_PREFIX = 'ralph-round-';

/** The prefix of a spare folder: a round folder between two rounds, kept for the next one (see takeRoundFolder). */
export const SPARE_FOLDER_PREFIX = 'ralph-spare-';

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

/** The name of the report's JSON Schema file in a round folder. */
const SCHEMA_FILE = 'report.schema.json';

/** The name of the report file in a round folder. */
const REPORT_FILE = 'report.json';

/** The name of the optional usage file in a round folder. */
const USAGE_FILE = 'usage.json';

/** How long a released round folder waits for the next round before it is removed. */
const IDLE_FOLDER_MS = 1_000;

/** A round's temporary folder in os.tmpdir(): its paths are fresh (no earlier round saw them). */
export interface RoundFolder {
  dir: string;
  /** The report's JSON Schema (RALPH_SCHEMA_FILE). */
  schemaFile: string;
  /** Where the child writes its report (RALPH_REPORT_FILE); nothing is there when the round starts. */
  reportFile: string;
  /** Where the child may write what it used (RALPH_USAGE_FILE); nothing is there when the round starts. */
  usageFile: string;
  /**
   * Records the round's process group, so a sweep after this host's death can kill it. Synchronous (a small
   * overwrite, some tens of µs), so it can run in the tick the group is born in and leave no turn of the event loop
   * in which a SIGKILLed host's agent would go unrecorded. Never throws.
   */
  recordGroup(pid: number): void;
  /**
   * Ends the round's use of the folder, once its group is gone: its paths stop existing at once (the folder is
   * renamed, or removed), and it may serve a later round under its new name. With `reuse: false` it is removed:
   * a sandboxed agent could write there what a later round, maybe of another run, would find. Synchronous; never
   * throws.
   */
  release(options?: { reuse?: boolean }): void;
}

/** A folder between two rounds, ready for the next: its owner record and schema file in place. */
interface IdleFolder {
  base: string;
  dir: string;
  schemaText: string;
}

const idle: IdleFolder[] = [];
let idleTimer: NodeJS.Timeout | undefined;
let exitHookInstalled = false;

const ownerOf = (host: HostIdentity): RoundOwner => ({
  bootId: host.bootId,
  pidNamespace: host.pidNamespace,
  host: { pid: host.pid, startTime: host.startTime },
});

/**
 * The size an owner record is padded to with spaces (JSON allows them): every record of a folder is the same size,
 * so a new one is written over the old in place. Truncating the file and writing it anew frees and allocates
 * blocks, journalled work that cost about 1 ms a round on a loaded disk; overwriting allocated bytes costs a page
 * write. A record is under 250 bytes.
 */
const OWNER_RECORD_BYTES = 512;

/** An owner record as the bytes written to its file: padded to OWNER_RECORD_BYTES when it fits. */
const ownerBytes = (owner: RoundOwner): Buffer => {
  const json = JSON.stringify(owner);
  return Buffer.from(json.length < OWNER_RECORD_BYTES ? json.padEnd(OWNER_RECORD_BYTES) : json);
};

/** Writes `record` over the owner file in place; a record of another size (it never is) rewrites the file. */
function overwriteOwner(file: string, record: Buffer): void {
  if (record.length !== OWNER_RECORD_BYTES) {
    writeFileSync(file, record);
    return;
  }
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, record, 0, record.length, 0);
  } finally {
    closeSync(fd);
  }
}

/** Removes a folder and all in it; never throws. */
const removeFolder = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** Removes every idle folder (the idle timer, and the exit hook: synchronous, as 'exit' handlers must be). */
function removeIdleFolders(): void {
  clearTimeout(idleTimer);
  idleTimer = undefined;
  for (const folder of idle.splice(0)) removeFolder(folder.dir);
}

const NAME_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh folder name in `base`, of the shape mkdtemp makes and the sweep looks for. */
function freshName(base: string, prefix: string): string {
  let suffix = '';
  for (const byte of randomBytes(6)) suffix += NAME_CHARS[byte % NAME_CHARS.length];
  return join(base, `${prefix}${suffix}`);
}

/** A spare folder of `base` for `schemaText`, renamed to a fresh round-folder name; undefined when there is none. */
function takeSpare(base: string, schemaText: string): IdleFolder | undefined {
  for (;;) {
    const at = idle.findIndex((folder) => folder.base === base && folder.schemaText === schemaText);
    if (at === -1) return undefined;
    const spare = idle.splice(at, 1)[0] as IdleFolder;
    const dir = freshName(base, ROUND_FOLDER_PREFIX);
    try {
      renameSync(spare.dir, dir);
      return { ...spare, dir };
    } catch {
      removeFolder(spare.dir);
    }
  }
}

/** A new folder: made, its host recorded, its schema written. */
function newFolder(base: string, schemaText: string, host: HostIdentity | null): IdleFolder {
  const dir = mkdtempSync(join(base, ROUND_FOLDER_PREFIX));
  try {
    if (host !== null) writeFileSync(join(dir, ROUND_OWNER_FILE), ownerBytes(ownerOf(host)));
    writeFileSync(join(dir, SCHEMA_FILE), schemaText);
  } catch (error) {
    removeFolder(dir);
    throw error;
  }
  return { base, dir, schemaText };
}

/**
 * A round folder that records its owner, for one round. The host is written before anything is started, so a
 * folder left by a host killed at any later moment says whose it was; the group is added in the tick it starts in.
 * A sweep that reads a record while it is rewritten finds no JSON and leaves the folder alone, as it does every
 * folder it cannot judge, so the rewrite needs no rename. Where /proc cannot identify processes (not Linux) nothing
 * is recorded and nothing will be swept.
 *
 * Folders are reused. At the round's end the report and usage files are unlinked and the folder renamed to a `ralph-spare-*`
 * name, so no path the round saw exists past its end; the next round renames a spare to a fresh `ralph-round-*`
 * name, its owner record and schema file in place. A spare is removed after a second unused, or at the host's exit;
 * a SIGKILLed host's spares are swept like its round folders. Per round that is two renames, an unlink and the
 * group's record, where a new folder costs a mkdtemp, three writes, three unlinks and a rmdir: journalled
 * file-system work that cost about 1 ms a round on a loaded disk (bench/per-round-parts.mjs). Every step is
 * synchronous: each is one small syscall, and through fs/promises each would be a trip through the thread pool.
 * A folder whose child changed its schema file, or whose report cannot be unlinked, is removed, not reused.
 */
export function takeRoundFolder(schemaText: string): RoundFolder {
  const base = tmpdir();
  const host = thisHost();
  const folder = takeSpare(base, schemaText) ?? newFolder(base, schemaText, host);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', removeIdleFolders);
  }
  const { dir } = folder;
  const ownerFile = join(dir, ROUND_OWNER_FILE);
  const schemaFile = join(dir, SCHEMA_FILE);
  const reportFile = join(dir, REPORT_FILE);
  const usageFile = join(dir, USAGE_FILE);
  let schemaStat: Stats | undefined;
  try {
    schemaStat = statSync(schemaFile);
  } catch {
    // Checked again at release: a folder whose schema file cannot be read is not reused.
  }
  let released = false;
  return {
    dir,
    schemaFile,
    reportFile,
    usageFile,
    recordGroup(pid) {
      const startTime = procStat(pid)?.startTime;
      if (host === null || startTime === undefined) return;
      try {
        overwriteOwner(ownerFile, ownerBytes({ ...ownerOf(host), group: { pid, startTime } }));
      } catch {
        // The round runs all the same; only a sweep after this host's SIGKILL would miss its group.
      }
    },
    release({ reuse = true } = {}) {
      if (released) return;
      released = true;
      if (!reuse) {
        removeFolder(dir);
        return;
      }
      try {
        const now = statSync(schemaFile);
        const same =
          schemaStat !== undefined &&
          now.ino === schemaStat.ino &&
          now.size === schemaStat.size &&
          now.mtimeMs === schemaStat.mtimeMs;
        if (!same) throw new Error('the schema file changed');
        unlinkIfThere(reportFile);
        unlinkIfThere(usageFile);
        const renamed = freshName(base, SPARE_FOLDER_PREFIX);
        renameSync(dir, renamed);
        idle.push({ base, dir: renamed, schemaText });
      } catch {
        removeFolder(dir);
        return;
      }
      clearTimeout(idleTimer);
      idleTimer = setTimeout(removeIdleFolders, IDLE_FOLDER_MS);
      idleTimer.unref();
    },
  };
}

/** Unlinks `file`; a file that is not there is no error. */
function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
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
 * True when the group led by `pid` may be signalled at all. kill(-1) signals every process the user may signal (as
 * root, every process), and ralph's own group holds ralph and whoever started it: an owner file is written in a
 * folder the round's agent can write to, so a crafted record must not be able to name either.
 */
function mayBeAgentGroup(pid: number): boolean {
  const own = procStat(process.pid);
  return Number.isSafeInteger(pid) && pid > 1 && pid !== process.pid && (own === null || pid !== own.pgrp);
}

/** True when the environment of the process `pid` names a file in the round folder `dir` (its RALPH_*_FILE do). */
async function namesFolder(pid: number | string, dir: string): Promise<boolean> {
  const environ = await readFile(`/proc/${pid}/environ`).catch(() => null);
  return environ?.includes(Buffer.from(`=${dir}/`)) === true;
}

/** True when `pid` is the live leader of its group and the round's agent of `dir`: only such a group is killed. */
async function isAgentLeaderOf(pid: number, dir: string): Promise<boolean> {
  const stat = procStat(pid);
  return (
    stat !== null &&
    stat.state !== 'Z' &&
    stat.pgrp === pid &&
    mayBeAgentGroup(pid) &&
    (await namesFolder(pid, dir))
  );
}

/**
 * The live group leaders whose environment names a file in the round folder `dir` (RALPH_SCHEMA_FILE and
 * RALPH_REPORT_FILE do): the round's agent, found without a record. Processes of other users cannot be read and
 * are never counted.
 */
async function leadersNaming(dir: string): Promise<number[]> {
  const leaders: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (/^\d+$/.test(entry) && (await isAgentLeaderOf(Number(entry), dir))) leaders.push(Number(entry));
  }
  return leaders;
}

/** Who hears of each orphaned process group a sweep killed: `ralph resume` says it killed the agent left behind. */
let orphanKilled: ((groupPid: number, owner: RoundOwner) => void) | undefined;

/** Sets (or with undefined clears) the listener told of each orphaned process group a sweep killed, once it is gone. */
export function onOrphanKilled(listener: ((groupPid: number, owner: RoundOwner) => void) | undefined): void {
  orphanKilled = listener;
}

/** Cleans up one round folder if its host is dead; true when it was removed. */
async function sweepFolder(dir: string, me: HostIdentity): Promise<boolean> {
  const owner = await ownerRecorded(dir);
  // Pids from another pid namespace (another container sharing /tmp) say nothing about processes here.
  if (owner === undefined || owner.pidNamespace !== me.pidNamespace) return false;
  if (owner.bootId === me.bootId) {
    if (stillRuns(owner.host)) return false;
    // The leader still runs (start time matches), so the group is the round's: a reused pid would start later. The
    // record is only a hint (the agent can write it): the leader must also be the folder's agent by its environment.
    const { group } = owner;
    const killed: number[] = [];
    if (group !== undefined && stillRuns(group) && (await isAgentLeaderOf(group.pid, dir))) {
      if (signalGroup(group.pid, 'SIGKILL')) killed.push(group.pid);
    } else {
      // No live group recorded: the host died between the spawn and writing the group's record (a busy machine can
      // pause it right there), or the record is an earlier round's in a reused folder. The round's processes are
      // found by the folder their environment names.
      for (const pid of await leadersNaming(dir)) if (signalGroup(pid, 'SIGKILL')) killed.push(pid);
    }
    // A SIGKILLed process dies when it is next scheduled, not when kill() returns: the sweep the first round waits
    // for ends only once the orphaned agent is gone, so a resumed round never works beside the one it replaces.
    const deadline = Date.now() + SWEEP_KILL_WAIT_MS;
    await Promise.all(killed.map((pid) => untilGroupGone(pid, deadline)));
    for (const pid of killed) orphanKilled?.(pid, owner);
  }
  // From another boot, every process it names is long gone: only the folder is left to remove.
  await rm(dir, { recursive: true, force: true });
  return true;
}

/**
 * Removes the round (and spare) folders in `dir` whose host is dead (its pid gone, or reused by a process that started later),
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
  const rounds = names.filter((name) => /^ralph-(round|spare)-[A-Za-z0-9]{6}$/.test(name));
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
