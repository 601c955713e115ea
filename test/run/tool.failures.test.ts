import { describe, expect, it } from 'vitest';
import { handoffSize, type RalphReport } from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

const invalidReports: Array<[string, unknown]> = [
  ['a continue report without next steps', { ...continueReport(), nextSteps: [] }],
  ['a continue report with a blocker', { ...continueReport(), blocker: 'something' }],
  ['a complete report without evidence', { ...completeReport(), evidence: [] }],
  ['a complete report with next steps', { ...completeReport(), nextSteps: ['more'] }],
  ['a complete report with a blocker', { ...completeReport(), blocker: 'oops' }],
  [
    'a blocked report without a blocker',
    { status: 'blocked', summary: 's', evidence: [], nextSteps: [], blocker: null },
  ],
  [
    'a blocked report with a blank blocker',
    { status: 'blocked', summary: 's', evidence: [], nextSteps: [], blocker: '  ' },
  ],
  ['an empty summary', { ...completeReport(), summary: '' }],
  ['a blank next step', { ...continueReport(), nextSteps: ['  '] }],
  ['a missing field', { status: 'complete', summary: 's', evidence: ['e'], nextSteps: [] }],
  ['an extra field', { ...completeReport(), confidence: 0.9 }],
  ['an unknown status', { ...completeReport(), status: 'done' }],
  ['a field of the wrong type', { ...completeReport(), evidence: 'it works' }],
  ['a string instead of an object', 'all done'],
  ['an array', [completeReport()]],
];

describe('a report that does not fit ends the run as a workflow failure', () => {
  it.each(invalidReports)('fails on %s, starting no further round', async (_, report) => {
    const { tool, provider } = scriptedTool([
      { report: continueReport() },
      { report },
      { report: completeReport() },
    ]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toMatch(/^Ralph workflow failed: round 2 report is malformed: /);
    expect(error.round).toBe(2);
    expect(provider.requests).toHaveLength(2);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
  ])('fails when a child finishes with no report (%s)', async (_, report) => {
    const { tool } = scriptedTool([{ report }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe('Ralph workflow failed: round 1 child finished without a structured report');
    expect(error.code).toBe('workflow-failed');
  });

  it('names what was wrong with a malformed report', async () => {
    const { tool } = scriptedTool([{ report: { ...continueReport(), nextSteps: [] } }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      'Ralph workflow failed: round 1 report is malformed: nextSteps: a continue report must list next steps',
    );
  });
});

describe('the handoff cap', () => {
  const reportOfSize = (size: number): RalphReport => {
    const base = completeReport('', ['ok']);
    return { ...base, summary: 'x'.repeat(size - handoffSize(base)) };
  };

  it('accepts a report of exactly maxHandoffChars, serialized', async () => {
    const report = reportOfSize(500);
    expect(JSON.stringify(report).length).toBe(500);
    const { tool } = scriptedTool([{ report }], { maxHandoffChars: 500 });
    await expect(tool.execute({ objective: 'x' }, { agent })).resolves.toMatchObject({ result: { report } });
  });

  it('fails the run on a report one character over, never truncating it', async () => {
    const { tool } = scriptedTool([{ report: reportOfSize(501) }], { maxHandoffChars: 500 });
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      'Ralph workflow failed: round 1 report is 501 characters, over the handoff cap of 500',
    );
  });

  it('is not mistaken for budget exhaustion on the last round', async () => {
    const big = { ...continueReport('y'.repeat(600)) };
    const { tool } = scriptedTool([{ report: big }], { maxHandoffChars: 500 });
    const error = await rejection(tool.execute({ objective: 'x', maxRounds: 1 }, { agent }));
    expect(error.code).toBe('workflow-failed');
  });

  it('defaults to 16,384 characters', async () => {
    const { tool } = scriptedTool([{ report: reportOfSize(16_384) }]);
    await expect(tool.execute({ objective: 'x' }, { agent })).resolves.toMatchObject({ agentsStarted: 1 });
    const over = scriptedTool([{ report: reportOfSize(16_385) }]);
    const error = await rejection(over.tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toContain('report is 16385 characters, over the handoff cap of 16384');
  });
});

describe('a failed round ends the run', () => {
  it('in round 1, says no previous handoff was available', async () => {
    const { tool, provider } = scriptedTool([{ childError: 'segfault' }, { report: completeReport() }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
    );
    expect(error.code).toBe('child-failed');
    expect(error.round).toBe(1);
    expect(error.lastHandoff).toBeNull();
    expect(error.detail).toBe('segfault');
    expect(provider.requests).toHaveLength(1);
  });

  it('in round n, carries the last successful handoff and does not retry', async () => {
    const second = continueReport('second round', ['third step']);
    const { tool, provider } = scriptedTool([
      { report: continueReport('first round') },
      { report: second },
      { childError: 'out of memory' },
      { report: completeReport() },
    ]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      `Ralph round 3 child failed before producing a structured report.\nLast successful handoff:\n${JSON.stringify(second, null, 2)}`,
    );
    expect(error.lastHandoff).toEqual(second);
    expect(error.round).toBe(3);
    expect(provider.requests).toHaveLength(3);
  });

  it('treats a provider that cannot start the child as a workflow failure', async () => {
    const first = continueReport();
    const { tool, provider } = scriptedTool([{ report: first }, { startError: 'spawn claude ENOENT' }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      'Ralph workflow failed: subagent provider "scripted" failed to start round 2: spawn claude ENOENT',
    );
    expect(error.code).toBe('workflow-failed');
    expect(error.lastHandoff).toEqual(first);
    expect(provider.requests).toHaveLength(2);
  });

  it('treats a provider whose start throws synchronously as a workflow failure', async () => {
    const { tool, providers } = scriptedTool([]);
    providers.register({
      name: 'scripted',
      capabilities: { structuredOutput: true, inheritsParentContext: false },
      start() {
        throw new Error('sync boom');
      },
    });
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toBe(
      'Ralph workflow failed: subagent provider "scripted" failed to start round 1: sync boom',
    );
  });

  it('treats a provider that returns no child run as a workflow failure', async () => {
    const { tool, providers } = scriptedTool([]);
    providers.register({
      name: 'scripted',
      capabilities: { structuredOutput: true, inheritsParentContext: false },
      start: async () => ({}) as never,
    });
    const error = await rejection(tool.execute({ objective: 'x' }, { agent }));
    expect(error.message).toMatch(
      /^Ralph workflow failed: subagent provider "scripted" failed to start round 1: /,
    );
  });
});
