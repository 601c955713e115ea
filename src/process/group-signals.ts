import { readdir } from 'node:fs/promises';
import { procStat } from './process-identity.js';

/**
 * Sends `signal` to every process in the group led by `pid`. False when the group is gone; true when it exists,
 * even if some member could not be signalled (EPERM), so callers never throw from an exit or abort handler.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** True while some process (a zombie included) still belongs to the group led by `pid`: one syscall. */
export function groupExists(pid: number): boolean {
  return signalGroup(pid, 0);
}

const hasProc = process.platform === 'linux';

/** True when /proc shows `pid` as a live (not zombie) member of the group `pgid`. */
function isLiveMember(pid: number | string, pgid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.pgrp === pgid && stat.state !== 'Z';
}

/**
 * How many /proc entries are read between two turns of the event loop. Each costs about 10 µs (an open, a read and
 * a close, synchronous: the cheapest way, and the thread pool stays free), so a slice blocks for well under a
 * millisecond however many processes the machine runs.
 */
const SCAN_SLICE = 64;

/**
 * The live members of the group `pgid` (zombies left out), from /proc, read in slices with a turn of the event
 * loop between them. Where there is no /proc, a group that exists counts as one live member.
 */
export async function liveMembersOf(pgid: number): Promise<number[]> {
  if (!hasProc) return groupExists(pgid) ? [pgid] : [];
  const entries = (await readdir('/proc').catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry));
  const members: number[] = [];
  for (let start = 0; start < entries.length; start += SCAN_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const entry of entries.slice(start, start + SCAN_SLICE)) {
      if (isLiveMember(entry, pgid)) members.push(Number(entry));
    }
  }
  return members;
}

/**
 * How long each wait between two looks at a dying group lasts: 1 ms, doubling, then 100 ms for good. A signalled
 * member usually dies within a millisecond or two, so the first looks come soon; a look that finds the group still
 * there is a syscall or two (a /proc scan only when no known member lives), so the early ones cost little.
 */
export function* deathPollDelays(): Generator<number, never> {
  let delay = 1;
  for (;;) {
    yield delay;
    delay = Math.min(delay * 2, 100);
  }
}

/**
 * A wait for the death of the group `pgid`: until no live process is left in it (a zombie does not count: an
 * orphaned grandchild is reaped by init, which in a container may never happen).
 *
 * Rounds are hot, so each look costs as little as the group allows. Usually the group is empty once its leader is
 * reaped, and one kill(-pgid, 0) says so. While it still exists, the members seen last time are checked first (one
 * small read each); only when none of them lives is /proc scanned again, in slices, to find members they started
 * or to confirm that only zombies are left. The looks back off from 1 ms to 100 ms, so a slow death costs ten
 * looks a second; `nudge()` after signalling the group starts again at 1 ms, as its death is then moments away.
 */
export class GroupDeathWatch {
  readonly #pgid: number;
  readonly #known = new Set<number>();
  #delays = deathPollDelays();
  #wake: (() => void) | undefined;

  constructor(pgid: number) {
    this.#pgid = pgid;
  }

  /** Looks again at once and backs off from 1 ms anew: the group was just signalled. */
  nudge(): void {
    this.#delays = deathPollDelays();
    this.#wake?.();
  }

  /** Resolves true once the group is gone, false when the clock passes `deadline` (ms since the epoch) first. */
  async untilGone(deadline: number): Promise<boolean> {
    for (;;) {
      if (await this.#isGone()) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.#sleep(Math.min(this.#delays.next().value, left));
    }
  }

  async #isGone(): Promise<boolean> {
    const pgid = this.#pgid;
    if (!groupExists(pgid)) return true;
    for (const pid of this.#known) {
      if (isLiveMember(pid, pgid)) return false;
      this.#known.delete(pid);
    }
    const members = await liveMembersOf(pgid);
    for (const pid of members) this.#known.add(pid);
    return members.length === 0;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

/** Waits until no live process is left in the group `pgid`, or the clock passes `deadline`; true when gone. */
export function untilGroupGone(pgid: number, deadline: number): Promise<boolean> {
  return new GroupDeathWatch(pgid).untilGone(deadline);
}
