import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport, expectCtrlCLeavesNoAgent, lastLine } from '../support/round-reports.js';
import { qwenWorld } from './harness.js';

describe('a qwen round that does not end in a good report, through the real program', () => {
  it('a model that never reports ends the run as a clear failure: no structured report', async () => {
    const world = await qwenWorld(() => () => say('I wrote the note. All done!'));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      [
        'ralph: round 1/256 started',
        'Ralph round 1 child failed before producing a structured report.',
        'No previous handoff was available.',
        'agent command ',
      ].join('\n'),
    );
    // The detail ends with qwen's own reason, not a page of its event stream.
    expect(lastLine(out.stderr)).toBe(
      'qwen reported error_during_execution: Model produced plain text instead of calling the structured_output tool as required by --json-schema after 1 turn(s). Output preview (27 chars): "I wrote the note. All done!".',
    );
  });

  it('a report qwen’s schema check refuses is corrected within the round, and the run completes', async () => {
    const world = await qwenWorld(() =>
      inOrder(
        call('structured_output', { status: 'done', summary: 'wrote it' }),
        call('structured_output', completeReport),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).result).toEqual({ status: 'complete', rounds: 1, report: completeReport });
    // One round, two model calls: the second saw qwen's answer to the refused report.
    expect(world.server.calls).toHaveLength(2);
    const answer = world.server.calls[1]?.messages?.find((message) => message.role === 'tool');
    expect(JSON.stringify(answer?.content)).toContain("params must have required property 'evidence'");
  });

  it('a report that breaks the status rules (complete with no evidence) is malformed', async () => {
    const world = await qwenWorld(() =>
      inOrder(call('structured_output', { ...completeReport, evidence: [] })),
    );
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'Ralph workflow failed: round 1 report is malformed: evidence: a complete report must carry evidence',
    );
  });

  it('Ctrl-C mid-round cancels the run and leaves no qwen process', async () => {
    const world = await qwenWorld(() => () => ({ kind: 'hold' }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForCalls(1);
    await expectCtrlCLeavesNoAgent(run, `HOME=${world.home.dir}`);
    expect(existsSync(join(world.workspace, 'note.txt'))).toBe(false);
  });
});
