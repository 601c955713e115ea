import { closeSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';

/** One Linux process's state, process group and start time, from /proc/<pid>/stat. */
export interface ProcStat {
  /** One letter: R, S, D, Z (zombie), T, … */
  state: string;
  pgrp: number;
  /** Field 22, in clock ticks since boot: with the pid, it names one process (a reused pid starts later). */
  startTime: string;
}

/** Parses a /proc/<pid>/stat line; null when it is not one. */
export function parseProcStat(stat: string): ProcStat | null {
  // "pid (name) state ppid pgrp …": the name may hold spaces and parentheses, so count from its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name, field 3 (state) is at index 0, so field 22 (starttime) is at index 19.
  const [state, , pgrp, startTime] = [fields[0], fields[1], fields[2], fields[19]];
  if (state === undefined || pgrp === undefined || startTime === undefined) return null;
  return { state, pgrp: Number(pgrp), startTime };
}

/** Room for a whole stat line: 52 numeric fields and a name of at most 64 bytes fit in well under 1 KiB. */
const statBuffer = Buffer.alloc(1024);

/**
 * The /proc view of one process; null when it is gone or there is no /proc (not Linux). One open, read and close
 * into a shared buffer (about 10 µs): group watches call it for every process on the machine.
 */
export function procStat(pid: number | string): ProcStat | null {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
  } catch {
    return null;
  }
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    return parseProcStat(statBuffer.toString('latin1', 0, length));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** What names this host process across its lifetime, as a round folder records it. */
export interface HostIdentity {
  /** This boot's id: pids and start times from another boot name nothing. */
  bootId: string;
  /** The pid namespace pids are read in: another container's pids mean nothing here. */
  pidNamespace: string;
  pid: number;
  startTime: string;
}

let host: HostIdentity | null | undefined;

/** This process's identity, read once; null where /proc cannot tell it (not Linux). */
export function thisHost(): HostIdentity | null {
  if (host !== undefined) return host;
  try {
    const startTime = procStat(process.pid)?.startTime;
    host =
      startTime === undefined
        ? null
        : {
            bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
            pidNamespace: readlinkSync('/proc/self/ns/pid'),
            pid: process.pid,
            startTime,
          };
  } catch {
    host = null;
  }
  return host;
}
