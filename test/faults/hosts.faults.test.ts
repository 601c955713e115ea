import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RalphEnvelope } from '../../src/index.js';
import { cleanEnv, isRunning, type Scratch, until, useScratch } from '../support/processes.js';
import { completeAt, FAULT_AGENT, useOwnTmpdir } from './harness.js';
import type { HostReport, HostScenario } from './host.js';

const tmp = useOwnTmpdir();
const s = useScratch();

const HOST = fileURLToPath(new URL('./host.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Waits until `condition` holds. A signalled process dies within milliseconds, so the deadline is short: a row that
 * fails (nothing was signalled) fails quickly.
 */
async function soon(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How a host process ended, and its report when it got to print one. */
interface HostEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  report: HostReport | undefined;
  stderr: string;
}

/** Starts a host process (node + tsx over src/) with TMPDIR `tmpdir`; `ended` settles once it exited. */
function startHost(s: Scratch, tmpdir: string, scenario: Partial<HostScenario>) {
  const full: HostScenario = {
    command: FAULT_AGENT,
    plan: ['complete'],
    pidLog: s.pidLog,
    workspace: s.workspace,
    runs: 1,
    throwingProgress: false,
    ...scenario,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', HOST, JSON.stringify(full)], {
    cwd: REPO,
    env: cleanEnv({ TMPDIR: tmpdir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const ended = new Promise<HostEnd>((resolve) => {
    child.once('close', (code, signal) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      resolve({ code, signal, report: last === '' ? undefined : (JSON.parse(last) as HostReport), stderr });
    });
  });
  return { child, ended };
}

/** The warnings of ralph's own a host saw (by type or by code). */
const ralphWarnings = (report: HostReport | undefined) =>
  (report?.warnings ?? []).filter((w) => w.name === 'RalphWarning' || w.code?.startsWith('RALPH_'));

/** How a host is expected to end. */
interface HostExpect {
  exit: { code: number | null; signal: NodeJS.Signals | null };
  /** Its report, when it ends by itself. */
  report?: {
    outcomes: Array<RalphEnvelope['result']>;
    events?: string[][];
    ralphWarnings: HostReport['warnings'];
  };
}

/** A row: a host process meets a fault; how it ends, what it leaves, and what the next host leaves. */
interface HostRow {
  name: string;
  host: Partial<HostScenario>;
  /** SIGKILL the host once this many processes have logged their pids. */
  killOnceLogged?: number;
  expect: HostExpect;
  /** What is left once the host is gone: fake-agent processes still running, and round folders (if said). */
  leftBehind: { running: number; roundFolders?: number };
  /** A new host started afterwards: how it ends; after it, nothing at all is left. */
  next?: { host: Partial<HostScenario>; expect: HostExpect };
}

const TWO_ROUNDS = [
  'round-started 1',
  'child-started 1',
  'report-accepted 1',
  'round-started 2',
  'child-started 2',
  'report-accepted 2',
];
const THREW = { name: 'RalphWarning', code: 'RALPH_ON_PROGRESS_THREW' };
const completeIn1 = { status: 'complete' as const, rounds: 1, report: completeAt(1) };
const completeIn2 = { status: 'complete' as const, rounds: 2, report: completeAt(2) };

const rows: HostRow[] = [
  {
    name: 'a throwing onProgress: each run settles normally, every later event is delivered, one warning a run',
    host: { plan: ['continue', 'complete'], runs: 2, throwingProgress: true },
    expect: {
      exit: { code: 0, signal: null },
      report: {
        outcomes: [completeIn2, completeIn2],
        events: [TWO_ROUNDS, TWO_ROUNDS],
        ralphWarnings: [THREW, THREW],
      },
    },
    leftBehind: { running: 0, roundFolders: 0 },
  },
  ...(['uncaught', 'exit'] as const).map(
    (die): HostRow => ({
      name: `the host dies mid-round (${die === 'exit' ? 'process.exit()' : 'an uncaught exception'}): its agent group is killed as it exits`,
      host: { plan: ['hang'], die },
      expect: { exit: { code: die === 'exit' ? 7 : 1, signal: null } },
      leftBehind: { running: 0 },
      next: {
        host: { plan: ['complete'] },
        expect: { exit: { code: 0, signal: null }, report: { outcomes: [completeIn1], ralphWarnings: [] } },
      },
    }),
  ),
  {
    name: 'the host killed by SIGKILL mid-round: its agent and round folder are left, the next host clears them',
    host: { plan: ['hang'] },
    killOnceLogged: 1,
    expect: { exit: { code: null, signal: 'SIGKILL' } },
    leftBehind: { running: 1, roundFolders: 1 },
    next: {
      host: { plan: ['complete'] },
      expect: { exit: { code: 0, signal: null }, report: { outcomes: [completeIn1], ralphWarnings: [] } },
    },
  },
];

function expectHostEnd(end: HostEnd, expected: HostExpect): void {
  expect({ code: end.code, signal: end.signal }, end.stderr).toEqual(expected.exit);
  if (expected.report === undefined) return;
  expect(end.report?.outcomes).toEqual(expected.report.outcomes);
  if (expected.report.events !== undefined) expect(end.report?.events).toEqual(expected.report.events);
  expect(ralphWarnings(end.report)).toEqual(expected.report.ralphWarnings);
}

describe('the fault matrix: the host process itself fails', () => {
  for (const row of rows)
    it(row.name, async () => {
      // The row's hosts share a temp folder of their own, so what one row leaves cannot be counted in another.
      const rowTmp = mkdtempSync(join(tmp.dir, 'row-'));
      const roundFolders = () => readdirSync(rowTmp).filter((name) => name.startsWith('ralph-round-'));
      const host = startHost(s, rowTmp, row.host);
      if (row.killOnceLogged !== undefined) {
        const count = row.killOnceLogged;
        await until(async () => (await s.pids()).length >= count, `${count} agent processes to be in place`);
        host.child.kill('SIGKILL');
      }
      expectHostEnd(await host.ended, row.expect);
      const pids = await s.pids();
      // A host that signalled its agents as it died: the kernel finishes them off a moment later.
      if (row.leftBehind.running === 0)
        await soon(() => !pids.some(isRunning), 'the dead host’s agents to be gone');
      expect(pids.filter(isRunning)).toHaveLength(row.leftBehind.running);
      if (row.leftBehind.roundFolders !== undefined)
        expect(roundFolders()).toHaveLength(row.leftBehind.roundFolders);

      if (row.next !== undefined) {
        const next = startHost(s, rowTmp, row.next.host);
        expectHostEnd(await next.ended, row.next.expect);
        // The host is gone, so whatever it cleared is cleared by now.
        expect(roundFolders()).toEqual([]);
        // The new host SIGKILLed what the dead one left; the kernel finishes it off a moment later.
        await soon(() => !pids.some(isRunning), 'the dead host’s agents to be gone');
      }
      await s.assertNoneRunning();
      expect(roundFolders()).toEqual([]);
    });
});
