import { describe, expect, it } from 'vitest';
import { type RalphProgressEvent, type RalphReport, reportJsonSchema } from '../../src/index.js';
import { blockedReport, completeReport, continueReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

describe('rounds and reports', () => {
  it('settles complete when the first round reports complete, with the report and one round', async () => {
    const report = completeReport('wrote the parser', ['vitest: 12 passed']);
    const { tool } = scriptedTool([{ report }]);
    const envelope = await tool.execute({ objective: 'write the parser' }, { agent });
    expect(envelope).toEqual({
      runId: expect.any(String),
      agentsStarted: 1,
      result: { status: 'complete', rounds: 1, report },
    });
  });

  it('starts a new round while the last report says there is more to do', async () => {
    const first = continueReport('scaffolded', ['write tests']);
    const second = continueReport('wrote tests', ['make them pass']);
    const last = completeReport('all green');
    const { tool, provider } = scriptedTool([{ report: first }, { report: second }, { report: last }]);
    const envelope = await tool.execute({ objective: 'build the thing', maxRounds: 5 }, { agent });
    expect(envelope.result).toEqual({ status: 'complete', rounds: 3, report: last });
    expect(envelope.agentsStarted).toBe(3);
    expect(provider.requests.map((r) => r.round)).toEqual([1, 2, 3]);
  });

  it('gives each fresh child only the objective, its round and cap, the workspace and the previous handoff', async () => {
    const first = continueReport('scaffolded', ['write tests']);
    const { tool, provider } = scriptedTool([{ report: first }, { report: completeReport() }]);
    const envelope = await tool.execute({ objective: 'build the thing', maxRounds: 5 }, { agent });
    const [r1, r2] = provider.requests;
    expect(r1).toMatchObject({
      runId: envelope.runId,
      round: 1,
      maxRounds: 5,
      objective: 'build the thing',
      handoff: null,
      cwd: agent.cwd,
      parent: agent,
    });
    expect(r2).toMatchObject({ runId: envelope.runId, round: 2, maxRounds: 5, handoff: first });
    expect(r1?.outputSchema).toEqual(reportJsonSchema);
    for (const [request, round] of [
      [r1, 1],
      [r2, 2],
    ] as const) {
      expect(request?.prompt).toContain('build the thing');
      expect(request?.prompt).toContain(`round ${round} of at most 5`);
      expect(request?.prompt).toMatch(/shared workspace.*authority/s);
    }
    expect(r1?.prompt).toContain('None: this is the first round.');
    expect(r2?.prompt).toContain(JSON.stringify(first, null, 2));
  });

  it('hands each child its own copy of the report schema', async () => {
    const { tool, provider } = scriptedTool([
      (request) => {
        (request.outputSchema as Record<string, unknown>).type = 'mutated';
        return continueReport();
      },
      { report: completeReport() },
    ]);
    await tool.execute({ objective: 'x' }, { agent });
    expect(provider.requests[1]?.outputSchema).toEqual(reportJsonSchema);
  });

  it('settles blocked when a round reports a concrete blocker', async () => {
    const report = blockedReport('the staging database is down');
    const { tool } = scriptedTool([{ report: continueReport() }, { report }]);
    const envelope = await tool.execute({ objective: 'migrate' }, { agent });
    expect(envelope.result).toEqual({ status: 'blocked', rounds: 2, report });
  });

  it.each([1, 3])('settles budget-limited when a cap of %i is reached with work remaining', async (cap) => {
    const last = continueReport('still going', ['keep going']);
    const { tool, provider } = scriptedTool([{ report: last }]);
    const envelope = await tool.execute({ objective: 'endless', maxRounds: cap }, { agent });
    expect(envelope.result).toEqual({ status: 'budget-limited', rounds: cap, report: last });
    expect(envelope.agentsStarted).toBe(cap);
    expect(provider.requests).toHaveLength(cap);
  });

  it('runs 256 rounds by default, and no more', async () => {
    const { tool, provider } = scriptedTool([{ report: continueReport() }]);
    const envelope = await tool.execute({ objective: 'endless' }, { agent });
    expect(envelope.result.status).toBe('budget-limited');
    expect(envelope.result.rounds).toBe(256);
    expect(provider.requests).toHaveLength(256);
  });

  it('does not call a complete report on the last round budget-limited', async () => {
    const { tool } = scriptedTool([{ report: continueReport() }, { report: completeReport() }]);
    const envelope = await tool.execute({ objective: 'x', maxRounds: 2 }, { agent });
    expect(envelope.result.status).toBe('complete');
  });

  it('reports progress: each round started, each child started, each report accepted', async () => {
    const events: RalphProgressEvent[] = [];
    const first = continueReport();
    const last = completeReport();
    const { tool } = scriptedTool([{ report: first }, { report: last }]);
    const envelope = await tool.execute(
      { objective: 'x', maxRounds: 4 },
      { agent, onProgress: (e) => events.push(e) },
    );
    const runId = envelope.runId;
    expect(events).toEqual([
      { type: 'round-started', runId, round: 1, maxRounds: 4 },
      { type: 'child-started', runId, round: 1, maxRounds: 4, childId: `${runId}-r1` },
      { type: 'report-accepted', runId, round: 1, maxRounds: 4, report: first },
      { type: 'round-started', runId, round: 2, maxRounds: 4 },
      { type: 'child-started', runId, round: 2, maxRounds: 4, childId: `${runId}-r2` },
      { type: 'report-accepted', runId, round: 2, maxRounds: 4, report: last },
    ]);
  });

  it('returns a report that is plain data, equal to what the child reported', async () => {
    const report: RalphReport = completeReport('done', ['a', 'b']);
    const { tool } = scriptedTool([{ report }]);
    const envelope = await tool.execute({ objective: 'x' }, { agent });
    expect(JSON.parse(JSON.stringify(envelope))).toEqual(envelope);
  });
});
