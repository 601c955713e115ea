import { beforeAll, describe, expect, it } from 'vitest';
import type { RalphReport } from '../../src/index.js';
import { agentCommand, scratch, useScratch } from '../support/processes.js';
import {
  agentIn,
  type Expected,
  expectNothingLeft,
  expectOutcome,
  faultTool,
  settled,
  useOwnTmpdir,
} from './harness.js';

const tmp = useOwnTmpdir();
const s = useScratch();

const MiB = 1024 * 1024;
const FLOOD_MIB = 1024;
/**
 * What the host may grow by while a child prints a GiB: the kept tails are 1 MiB a stream; the rest is read buffers
 * the collector has not taken back yet. Keeping the flood would cost 1024 MiB.
 */
const RSS_GROWTH_BOUND_MIB = 64;

interface FloodRow {
  name: string;
  /** flood.mjs's arguments: MiB, stream, where the report goes. */
  args: [string, 'stdout' | 'stderr', 'report-file' | 'stdout'];
  expect: Expected;
}

/** The complete report the node fixtures (lib.mjs) write in round 1. */
const nodeComplete: RalphReport = {
  status: 'complete',
  summary: 'round 1 finished',
  evidence: ['round-1.txt written'],
  nextSteps: [],
  blocker: null,
};

const rows: FloodRow[] = [
  {
    name: 'a 1 GiB stdout flood, then a report file',
    args: [String(FLOOD_MIB), 'stdout', 'report-file'],
    expect: { status: 'complete', rounds: 1, report: nodeComplete },
  },
  {
    name: 'a 1 GiB stderr flood, then a report file',
    args: [String(FLOOD_MIB), 'stderr', 'report-file'],
    expect: { status: 'complete', rounds: 1, report: nodeComplete },
  },
  {
    name: 'a 1 GiB stdout flood ending with the report: found in the kept tail',
    args: [String(FLOOD_MIB), 'stdout', 'stdout'],
    expect: { status: 'complete', rounds: 1, report: nodeComplete },
  },
];

/** The host's resident set before, at its peak during, and after `body`. */
async function rssAround<T>(body: () => Promise<T>) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const sampler = setInterval(sample, 5);
  try {
    const value = await body();
    sample();
    return { value, before, peak, after: process.memoryUsage().rss };
  } finally {
    clearInterval(sampler);
  }
}

describe('the fault matrix: a child floods its output, and the host stays small', () => {
  // The first flood of a process grows it once by about V8's external-memory limit (64 MiB of read buffers before
  // the collector runs); the allocator keeps that memory for later reads. Paid here, so the rows measure what a
  // flood costs a host that has read output before, whatever the flood's size.
  beforeAll(async () => {
    const warm = await scratch();
    try {
      const { tool } = faultTool(warm, { command: agentCommand('flood.mjs', '128') });
      const result = await settled(
        tool.execute({ objective: 'warm up' }, { agent: agentIn(warm.workspace) }),
      );
      expectOutcome(result, { status: 'complete', rounds: 1, report: nodeComplete });
      await expectNothingLeft(warm, tmp);
    } finally {
      await warm.cleanup();
    }
  });

  for (const row of rows)
    it(row.name, async () => {
      const { tool } = faultTool(s, { command: agentCommand('flood.mjs', ...row.args) });
      const {
        value: result,
        before,
        peak,
        after,
      } = await rssAround(() =>
        settled(tool.execute({ objective: 'flood' }, { agent: agentIn(s.workspace) })),
      );
      const mib = (bytes: number) => (bytes / MiB).toFixed(1);
      console.log(
        `${row.name}: host RSS before ${mib(before)} MiB, peak ${mib(peak)} (+${mib(peak - before)}), after ${mib(after)} MiB`,
      );

      expectOutcome(result, row.expect);
      expect((peak - before) / MiB).toBeLessThan(RSS_GROWTH_BOUND_MIB);
      expect(await s.pids()).toHaveLength(1);
      await expectNothingLeft(s, tmp);
    });
});
