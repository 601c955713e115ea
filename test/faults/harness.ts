import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  type RalphConfigInput,
  type RalphEnvelope,
  RalphError,
  type RalphErrorCode,
  type RalphReport,
  type RalphResultStatus,
} from '../../src/index.js';
import { agentsDir, cleanEnv, type Scratch } from '../support/processes.js';

/** The plain-sh fake agent whose FIXTURE_PLAN says what it does in each round (see the fixture's header). */
export const FAULT_AGENT = ['/bin/sh', join(agentsDir, 'fault.sh')];

/** The calling agent of a row: its cwd is the row's workspace. */
export const agentIn = (cwd: string) => ({ id: 'fault-parent', cwd });

/** The continue report fault.sh writes in `round`. */
export const continueAt = (round: number): RalphReport => ({
  status: 'continue',
  summary: `round ${round} done`,
  evidence: [],
  nextSteps: [`do round ${round + 1}`],
  blocker: null,
});

/** The complete report fault.sh writes in `round`. */
export const completeAt = (round: number): RalphReport => ({
  status: 'complete',
  summary: `round ${round} finished`,
  evidence: [`round-${round} checked`],
  nextSteps: [],
  blocker: null,
});

/** The blocked report fault.sh writes in `round`. */
export const blockedAt = (round: number): RalphReport => ({
  status: 'blocked',
  summary: `round ${round} stopped`,
  evidence: [],
  nextSteps: [],
  blocker: `round ${round} needs a key`,
});

/** The handoff before `round`: the continue report of the round before it, or none in round 1. */
export const handoffBefore = (round: number): RalphReport | null =>
  round > 1 ? continueAt(round - 1) : null;

/**
 * Gives the test file a temp folder of its own: TMPDIR points into it for the whole file (os.tmpdir() reads it at
 * call time), so the round folders the provider makes there can be counted, and nothing is left in the shared one.
 */
export function useOwnTmpdir(): { readonly dir: string; roundFolders(): string[] } {
  const previous = process.env.TMPDIR;
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-faults-'));
    process.env.TMPDIR = dir;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    roundFolders: () => readdirSync(dir).filter((name) => name.startsWith('ralph-round-')),
  };
}

/** How a call ended: its envelope, or the RalphError it rejected with. */
export type Settled = { ok: true; envelope: RalphEnvelope } | { ok: false; error: RalphError };

/** Waits for a call and keeps how it ended; anything but an envelope or a RalphError fails the row. */
export async function settled(call: Promise<RalphEnvelope>): Promise<Settled> {
  try {
    return { ok: true, envelope: await call };
  } catch (error) {
    if (error instanceof RalphError) return { ok: false, error };
    throw error;
  }
}

/** A row's expected ending: the envelope's status, rounds and last report, or the error's code, text and round. */
export type Expected =
  | { status: RalphResultStatus; rounds: number; report: RalphReport }
  | {
      code: RalphErrorCode;
      /** Word for word, or an asymmetric matcher where part of the text is a child's or a library's own. */
      message: string;
      round?: number;
      lastHandoff?: RalphReport | null;
    };

/** The part of a settled call a row's expectation speaks about. */
export function outcomeOf(result: Settled): Expected {
  if (result.ok) {
    const { status, rounds, report } = result.envelope.result;
    return { status, rounds, report };
  }
  const { code, message, round, lastHandoff } = result.error;
  const out: Expected = { code, message };
  if (round !== undefined) out.round = round;
  if (lastHandoff !== undefined) out.lastHandoff = lastHandoff;
  return out;
}

/** Asserts the call ended exactly as expected; an envelope also counts one child per round. */
export function expectOutcome(result: Settled, expected: Expected): void {
  expect(outcomeOf(result)).toEqual(expected);
  if (result.ok) expect(result.envelope.agentsStarted).toBe(result.envelope.result.rounds);
}

/** What the fault rows' tools are built from. */
export interface FaultToolOptions {
  /** Registry name of the provider (default 'command'). */
  name?: string;
  /** fault.sh's steps, one per round (the last repeats). */
  plan?: string[];
  /** Another fixture's argv instead of fault.sh. */
  command?: string[];
  /** FIXTURE_REPORT, for the `report` step. */
  report?: unknown;
  env?: Record<string, string>;
  config?: Partial<RalphConfigInput>;
}

/** A ralph tool over a command provider running a fake agent, logging its processes to the scratch pid log. */
export function faultTool(s: Pick<Scratch, 'pidLog' | 'logs'>, options: FaultToolOptions) {
  const name = options.name ?? 'command';
  const env: Record<string, string> = {
    FIXTURE_PID_LOG: s.pidLog,
    FIXTURE_SIGNAL_LOG: join(s.logs, 'signals'),
    ...options.env,
  };
  if (options.plan !== undefined) env.FIXTURE_PLAN = options.plan.join(',');
  if (options.report !== undefined) env.FIXTURE_REPORT = JSON.stringify(options.report);
  const providers = createProviderRegistry();
  const unregister = providers.register(
    commandProvider({ name, command: options.command ?? FAULT_AGENT, baseEnv: cleanEnv(), env }),
  );
  const tool = createRalphTool({ subagentProvider: name, ...options.config }, { providers });
  return { tool, providers, unregister };
}

/** Fails unless nothing a row started is left: no logged process running, no round folder in the file's TMPDIR. */
export async function expectNothingLeft(s: Scratch, tmp: { roundFolders(): string[] }): Promise<void> {
  await s.assertNoneRunning();
  expect(tmp.roundFolders()).toEqual([]);
}
