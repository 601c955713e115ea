import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportJsonSchema } from '../../../src/index.js';
import { call, inOrder } from '../support/chat-server.js';
import { QWEN_USER_MODEL } from '../support/qwen-env.js';
import { twoRoundReports } from '../support/round-reports.js';
import { qwenWorld } from './harness.js';

const { continueReport, completeReport } = twoRoundReports('qwen', 'write_file');

/**
 * Round 1: the model writes note.txt with qwen's own write_file tool, then reports continue through qwen's
 * structured_output tool. Round 2: the complete report at once.
 */
const twoRounds = (workspace: string) =>
  inOrder(
    call('write_file', { file_path: join(workspace, 'note.txt'), content: 'written by qwen\n' }),
    call('structured_output', continueReport),
    call('structured_output', completeReport),
  );

describe('ralph run --agent qwen drives the real qwen, one fresh process per round', () => {
  it('round 1 edits the workspace with qwen’s write_file and continues, round 2 completes', async () => {
    const world = await qwenWorld(twoRounds);
    const before = world.home.snapshot();
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expect(out.stderr).toContain(`ralph: round 2/256 reported complete: ${completeReport.summary}`);
    expect(out.code).toBe(0);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by qwen\n');
    expect(JSON.parse(out.stdout)).toEqual({
      runId: expect.any(String),
      agentsStarted: 2,
      result: { status: 'complete', rounds: 2, report: completeReport },
    });
    expect(world.server.calls).toHaveLength(3);
    // Round 2 was told of round 1 by ralph's handoff alone: none of round 1's tool calls reached it.
    const round2 = world.server.calls[2]?.messages ?? [];
    expect(JSON.stringify(round2)).toContain('check note.txt and finish');
    expect(round2.filter((message) => message.role === 'tool' || message.tool_calls !== undefined)).toEqual(
      [],
    );
    expect(JSON.stringify(round2)).not.toContain('Successfully created');

    // The user's own configuration chose the model and the provider (its base URL and key in ~/.qwen/.env)...
    for (const body of world.server.calls) expect(body.model).toBe(QWEN_USER_MODEL);
    // ...and no file under ~/.qwen changed, and none was added: no log, no conversation, no session.
    expect(world.home.snapshot()).toEqual(before);
  });

  it('qwen hands the model the report schema as its structured_output tool, unchanged', async () => {
    const world = await qwenWorld(twoRounds);
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);

    for (const body of world.server.calls) {
      const tool = body.tools?.find((offered) => offered.function?.name === 'structured_output');
      expect(tool?.function?.parameters).toEqual(reportJsonSchema);
    }
  });

  it('each round’s usage is qwen’s own count of tokens and turns (qwen reports no cost)', async () => {
    const world = await qwenWorld(twoRounds);
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);
    // The scripted server counts 10 prompt and 10 completion tokens a request: round 1 made two, round 2 one.
    expect(out.stderr).toContain(
      `round 1/256 reported continue: ${continueReport.summary} [20 in / 20 out tokens · 2 turns; run total 20 in / 20 out tokens · 2 turns]`,
    );
    expect(out.stderr).toContain('ralph: used in all: 30 in / 30 out tokens · 3 turns\n');
  });
});
