import { describe, expect, it } from 'vitest';
import { checkReport, type RalphProgressEvent, type RalphReport, unreadableReport } from '../../src/index.js';
import { blockedReport, completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

const FIELDS: ReadonlySet<PropertyKey> = new Set(['status', 'summary', 'evidence', 'nextSteps', 'blocker']);

/** `report` behind a proxy that counts every read of its fields (promises also read `then`; that is no check). */
function countingReads(report: RalphReport) {
  const counter = { reads: 0 };
  const proxy = new Proxy(report, {
    get(target, key, receiver) {
      if (FIELDS.has(key)) counter.reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { proxy, counter };
}

/** How many field reads one check of `report` takes. */
function readsOfOneCheck(report: RalphReport): number {
  const { proxy, counter } = countingReads(report);
  expect(checkReport(proxy).ok).toBe(true);
  return counter.reads;
}

describe('each report is reviewed once', () => {
  it.each([
    ['a continue report followed by a complete one', continueReport(), completeReport()],
    ['a blocked report', blockedReport(), undefined],
    ['a complete report', completeReport(), undefined],
  ])('reads %s exactly as often as one check does', async (_, first, second) => {
    const counted = countingReads(first);
    const steps = [{ report: counted.proxy }, ...(second === undefined ? [] : [{ report: second }])];
    const { tool } = scriptedTool(steps);
    await tool.execute({ objective: 'x' }, { agent });
    expect(counted.counter.reads).toBe(readsOfOneCheck(first));
  });

  it('reads a report at the round cap once too', async () => {
    const counted = countingReads(continueReport());
    const { tool } = scriptedTool([{ report: counted.proxy }]);
    const envelope = await tool.execute({ objective: 'x', maxRounds: 1 }, { agent });
    expect(envelope.result.status).toBe('budget-limited');
    expect(counted.counter.reads).toBe(readsOfOneCheck(continueReport()));
  });
});

describe("a provider's word that its child left no usable report", () => {
  it('missing: fails the workflow as a report that never came, keeping the reason as the detail', async () => {
    const { tool, provider } = scriptedTool([
      { report: continueReport() },
      { report: unreadableReport('missing', 'the agent wrote no report file and nothing on stdout') },
      { report: completeReport() },
    ]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.toJSON()).toEqual({
      code: 'workflow-failed',
      message: 'Ralph workflow failed: round 2 child finished without a structured report',
      round: 2,
      lastHandoff: continueReport(),
      detail: 'the agent wrote no report file and nothing on stdout',
      runId: expect.any(String),
    });
    expect(provider.requests).toHaveLength(2);
  });

  it('malformed: fails the workflow naming the problem, and keeps it as the detail', async () => {
    const problem = 'report.json is not JSON: Unexpected token } in JSON at position 12';
    const { tool, provider } = scriptedTool([{ report: unreadableReport('malformed', problem) }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.toJSON()).toEqual({
      code: 'workflow-failed',
      message: `Ralph workflow failed: round 1 report is malformed: ${problem}`,
      round: 1,
      lastHandoff: null,
      detail: problem,
      runId: expect.any(String),
    });
    expect(provider.requests).toHaveLength(1);
  });

  it('cannot be forged by a child: JSON that looks like one is a malformed report', async () => {
    const lookalike = JSON.parse(JSON.stringify({ kind: 'missing', problem: 'none' }));
    const { tool } = scriptedTool([{ report: lookalike }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toMatch(/^Ralph workflow failed: round 1 report is malformed: /);
  });
});

describe('a final report the rules refuse never reaches the host', () => {
  const runWatched = async (report: unknown, maxHandoffChars?: number) => {
    const progress: RalphProgressEvent[] = [];
    const { tool } = scriptedTool(
      [{ report: continueReport() }, { report }],
      maxHandoffChars === undefined ? {} : { maxHandoffChars },
    );
    const call = tool.execute(
      { objective: 'x', maxRounds: 2 },
      { agent, onProgress: (event) => progress.push(event) },
    );
    const error = await rejection(call);
    const accepted = progress.filter((e) => e.type === 'report-accepted').map((e) => e.round);
    return { error, accepted };
  };

  it('a complete report over the handoff cap in the last round', async () => {
    const big = completeReport('y'.repeat(600));
    const { error, accepted } = await runWatched(big, 500);
    expect(error.message).toBe(
      `Ralph workflow failed: round 2 report is ${JSON.stringify(big).length} characters, over the handoff cap of 500`,
    );
    expect(error.lastHandoff).toEqual(continueReport());
    expect(accepted).toEqual([1]);
  });

  it('a malformed complete report in the last round', async () => {
    const { error, accepted } = await runWatched({ ...completeReport(), evidence: [] });
    expect(error.message).toBe(
      'Ralph workflow failed: round 2 report is malformed: evidence: a complete report must carry evidence',
    );
    expect(accepted).toEqual([1]);
  });
});
