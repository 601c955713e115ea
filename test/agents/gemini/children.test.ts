import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportJsonSchema } from '../../../src/index.js';
import { call, inOrder, say } from '../support/chat-server.js';
import { GEMINI_USER_MODEL } from '../support/gemini-env.js';
import { twoRoundReports } from '../support/round-reports.js';
import { geminiWorld, REPORT_TOOL } from './harness.js';

const { continueReport, completeReport } = twoRoundReports('gemini', 'write_file');

/**
 * Round 1: the model writes note.txt with gemini's own write_file tool, reports continue through ralph's report
 * tool, and ends its turn. Round 2: the complete report, then the end of the turn.
 */
const twoRounds = (workspace: string) =>
  inOrder(
    call('write_file', { file_path: join(workspace, 'note.txt'), content: 'written by gemini\n' }),
    call(REPORT_TOOL, continueReport),
    say('Reported.'),
    call(REPORT_TOOL, completeReport),
    say('Reported.'),
  );

describe('ralph run --agent gemini drives the real gemini, reporting through ralph’s report tool', () => {
  it('round 1 edits the workspace with gemini’s write_file and continues, round 2 completes', async () => {
    const world = await geminiWorld(twoRounds);
    const before = world.home.snapshot();
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expect(out.stderr).toContain(`ralph: round 2/256 reported complete: ${completeReport.summary}`);
    expect(out.code).toBe(0);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by gemini\n');
    expect(JSON.parse(out.stdout)).toEqual({
      runId: expect.any(String),
      agentsStarted: 2,
      result: { status: 'complete', rounds: 2, report: completeReport },
    });
    expect(world.server.turns).toHaveLength(5);
    // Round 2 was told of round 1 by ralph's handoff alone: none of round 1's tool calls reached it.
    const round2 = JSON.stringify(world.server.turns[3]?.body.contents);
    expect(round2).toContain('check note.txt and finish');
    expect(round2).not.toContain('functionResponse');

    // The user's own settings chose the model, and their ~/.gemini/.env the key and the server...
    for (const turn of world.server.turns) expect(turn.model).toBe(GEMINI_USER_MODEL);
    // ...and nothing under ~/.gemini changed or was added: no chat, no log, no history.
    expect(world.home.snapshot()).toEqual(before);
  });

  it('the report tool is offered with the report schema as its parameters, and is the only MCP tool', async () => {
    const world = await geminiWorld(twoRounds);
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);

    for (const turn of world.server.turns) {
      const declarations = (turn.body.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
      const report = declarations.find((declaration) => declaration.name === REPORT_TOOL);
      // Gemini CLI hands the API the schema in its own dialect (a nullable type becomes its base type); the
      // fields, their order of requirement and the status values are the report's.
      const schema = (report?.parametersJsonSchema ?? report?.parameters) as typeof reportJsonSchema;
      expect(schema.required).toEqual(reportJsonSchema.required);
      // (Gemini CLI adds a `wait_for_previous` parameter of its own to every tool.)
      expect(Object.keys(schema.properties as object)).toEqual([
        ...Object.keys(reportJsonSchema.properties as object),
        'wait_for_previous',
      ]);
      expect(JSON.stringify(schema)).toContain('["continue","complete","blocked"]');
      expect(declarations.filter((declaration) => declaration.name.startsWith('mcp_')).length).toBe(1);
    }
  });

  it('each round’s usage is gemini’s own count of tokens and requests (gemini reports no cost)', async () => {
    const world = await geminiWorld(twoRounds);
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(
      new RegExp(
        `round 1/256 reported continue: ${continueReport.summary} \\[\\d+ in / \\d+ out tokens · \\d+ turns;`,
      ),
    );
  });
});
