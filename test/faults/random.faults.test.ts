import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  childFailureMessage,
  handoffSize,
  type RalphReport,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../../src/index.js';
import { isRunning, until, useScratch } from '../support/processes.js';
import {
  agentIn,
  completeAt,
  continueAt,
  type Expected,
  type FaultToolOptions,
  faultTool,
  handoffBefore,
  outcomeOf,
  settled,
  useOwnTmpdir,
} from './harness.js';

const tmp = useOwnTmpdir();
const s = useScratch();

const RUNS = 200;
const SEED = 0x5eed_0008;
const CONFIG = { maxHandoffChars: 400, terminationGraceMs: 200 };

/** mulberry32: a small seeded PRNG, so the mix of faults is the same on every run of the test. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** One run's fault: what its child does in `round` (after `round - 1` good continue rounds). */
type Fault = {
  kind: 'complete' | 'crash' | 'sigkill' | 'garbage' | 'oversized' | 'violation' | 'cancel' | 'ignore-term';
  round: number;
};
const KINDS: Fault['kind'][] = [
  'complete',
  'crash',
  'sigkill',
  'garbage',
  'oversized',
  'violation',
  'cancel',
  'ignore-term',
];

const OVERSIZED: RalphReport = { ...completeAt(9), summary: 'x'.repeat(500) };
const VIOLATION: RalphReport = { ...continueAt(9), nextSteps: [] };

/** The fault.sh step that plays a fault, and what else its run needs. */
function setupOf(fault: Fault): FaultToolOptions & { cancel: boolean } {
  const before = Array.from({ length: fault.round - 1 }, () => 'continue');
  const step: Record<Fault['kind'], string> = {
    complete: 'complete',
    crash: 'crash',
    sigkill: 'sigkill',
    garbage: 'garbage',
    oversized: 'report',
    violation: 'report',
    cancel: 'hang',
    'ignore-term': 'ignore-term',
  };
  const report = fault.kind === 'oversized' ? OVERSIZED : fault.kind === 'violation' ? VIOLATION : undefined;
  return {
    plan: [...before, step[fault.kind]],
    ...(report === undefined ? {} : { report }),
    config: CONFIG,
    cancel: fault.kind === 'cancel' || fault.kind === 'ignore-term',
  };
}

/** What the contract says a run with this fault settles as. */
function predicted({ kind, round }: Fault): Expected {
  const failed = (code: 'workflow-failed' | 'child-failed' | 'cancelled', message: string): Expected => ({
    code,
    message,
    round,
    lastHandoff: handoffBefore(round),
  });
  switch (kind) {
    case 'complete':
      return { status: 'complete', rounds: round, report: completeAt(round) };
    case 'crash':
    case 'sigkill':
      return failed('child-failed', childFailureMessage(round, handoffBefore(round)));
    case 'garbage':
      return failed(
        'workflow-failed',
        workflowFailed(`round ${round} child finished without a structured report`),
      );
    case 'oversized':
      return failed(
        'workflow-failed',
        workflowFailed(
          `round ${round} report is ${handoffSize(OVERSIZED)} characters, over the handoff cap of ${CONFIG.maxHandoffChars}`,
        ),
      );
    case 'violation':
      return failed(
        'workflow-failed',
        workflowFailed(
          `round ${round} report is malformed: nextSteps: a continue report must list next steps`,
        ),
      );
    case 'cancel':
    case 'ignore-term':
      return failed('cancelled', WORKFLOW_CANCELLED);
  }
}

const random = prng(SEED);
const faults: Fault[] = Array.from({ length: RUNS }, () => ({
  kind: KINDS[Math.floor(random() * KINDS.length)] as Fault['kind'],
  round: 1 + Math.floor(random() * 3),
}));

const pidsIn = async (file: string): Promise<number[]> =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

describe('the fault matrix: many runs at once, each with its own fault', () => {
  it(`${RUNS} concurrent runs with seeded random faults each settle as their fault predicts, leaving nothing`, {
    timeout: 90_000,
  }, async () => {
    const counts = Object.fromEntries(
      KINDS.map((kind) => [kind, faults.filter((f) => f.kind === kind).length]),
    );
    console.log(`seed ${SEED.toString(16)}: ${JSON.stringify(counts)}`);

    const runs = faults.map(async (fault, i) => {
      const pidLog = join(s.logs, `run-${i}.pids`);
      const { cancel, ...options } = setupOf(fault);
      const { tool } = faultTool({ pidLog, logs: s.logs }, { ...options, name: `run-${i}` });
      const turn = new AbortController();
      const call = settled(
        tool.execute({ objective: `run ${i}` }, { agent: agentIn(s.workspace), signal: turn.signal }),
      );
      if (cancel) {
        await until(
          async () => (await pidsIn(pidLog)).length >= fault.round,
          `run ${i}'s child to be in place`,
          // 200 runs spawning at once beside the rest of the suite took over 15 s on a loaded machine.
          75_000,
        );
        turn.abort();
      }
      return { fault, result: await call, pids: await pidsIn(pidLog) };
    });
    const ended = await Promise.all(runs);
    const all = ended.flatMap((run) => run.pids);
    try {
      for (const [i, { fault, result, pids }] of ended.entries()) {
        const label = `run ${i}: ${fault.kind} in round ${fault.round}`;
        expect(outcomeOf(result), label).toEqual(predicted(fault));
        // One child a round, and no round past the fault.
        expect(pids, label).toHaveLength(fault.round);
      }
      expect(all.filter(isRunning)).toEqual([]);
      expect(tmp.roundFolders()).toEqual([]);
    } finally {
      // A failed row must not leave its fakes running for the rest of the suite.
      for (const pid of all.filter(isRunning)) process.kill(pid, 'SIGKILL');
    }
  });
});
