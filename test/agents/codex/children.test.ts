import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RalphReport, reportJsonSchema } from '../../../src/index.js';
import { call, inOrder, type ResponsesRequestBody, say } from '../support/responses-server.js';
import {
  codexWorld,
  markerMcp,
  offeredTools,
  onCleanup,
  outputText,
  reportText,
  toolOutputs,
} from './harness.js';

const continueReport: RalphReport = {
  status: 'continue',
  summary: 'round 1 wrote note.txt with codex exec_command',
  evidence: [],
  nextSteps: ['check note.txt and finish'],
  blocker: null,
};

const completeReport: RalphReport = {
  status: 'complete',
  summary: 'round 2 checked note.txt',
  evidence: ['note.txt holds "written by codex"'],
  nextSteps: [],
  blocker: null,
};

/** What the round-1 shell writes into the report file before the turn ends: codex's `-o` must overwrite it. */
const decoyReport: RalphReport = {
  status: 'continue',
  summary: 'the decoy the shell wrote into the report file',
  evidence: [],
  nextSteps: ['the decoy step'],
  blocker: null,
};

/**
 * Round 1: the model runs a shell command with codex's own `exec_command` tool (it writes note.txt, prints the
 * report file's path, and leaves a decoy report in that file), then ends with the continue report as its final
 * message. Round 2: the complete report at once.
 */
const twoRounds = () =>
  inOrder(
    call('exec_command', {
      cmd: `printf 'written by codex\\n' > note.txt && printf '%s' '${reportText(decoyReport)}' > "$RALPH_REPORT_FILE" && echo "report file: $RALPH_REPORT_FILE"`,
    }),
    say(reportText(continueReport)),
    say(reportText(completeReport)),
  );

/** The user's own codex config: ralph's MCP server registered, and another server beside it. */
function userMcpServers(ralphMarker: string, notesMarker: string): string {
  return [
    '[mcp_servers.ralph]',
    'command = "node"',
    `args = ${JSON.stringify([markerMcp, ralphMarker, 'ralph'])}`,
    '',
    '[mcp_servers.notes]',
    'command = "node"',
    `args = ${JSON.stringify([markerMcp, notesMarker, 'note'])}`,
    '',
  ].join('\n');
}

describe('ralph run --agent codex drives the real codex, one fresh process per round', () => {
  it('round 1 edits the workspace with codex’s shell and continues, round 2 completes', async () => {
    const world = await codexWorld(twoRounds());
    const out = await world.ralphRun('Write note.txt', '--json').finished;

    expect(out.stderr).toContain('ralph: round 2/256 reported complete: round 2 checked note.txt');
    expect(out.code).toBe(0);
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written by codex\n');
    expect(JSON.parse(out.stdout)).toEqual({
      runId: expect.any(String),
      agentsStarted: 2,
      result: { status: 'complete', rounds: 2, report: completeReport },
    });

    const calls = world.server.responsesCalls();
    expect(calls).toHaveLength(3);
    // The shell ran in the workspace and saw the round's report file, the path ralph gave codex's `-o`.
    const shellOutput = outputText(toolOutputs(world.server.responsesCall(1))[0]?.output);
    expect(shellOutput).toMatch(/report file: \/\S*ralph-round-[^/]+\/report\.json/);
    // Round 1's report is the final message, not the decoy the shell left in the report file: codex wrote its
    // structured final message over it through `-o`, and ralph read it there.
    expect(out.stderr).toContain(`ralph: round 1/256 reported continue: ${continueReport.summary}`);
    expect(out.stderr).not.toContain(decoyReport.summary);
    // Round 2 was told of round 1 by ralph's handoff alone.
    expect(JSON.stringify(world.server.responsesCall(2).input)).toContain('check note.txt and finish');
  });

  it('codex sends the report schema as its structured output format, unchanged', async () => {
    const world = await codexWorld(twoRounds());
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);

    for (const body of world.server.responsesCalls()) {
      expect(body.text?.format).toEqual({
        type: 'json_schema',
        name: 'codex_output_schema',
        strict: true,
        schema: reportJsonSchema,
      });
    }
  });

  it('each round is a fresh codex with no session saved and no earlier conversation', async () => {
    const world = await codexWorld(twoRounds());
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);

    const [round1, round1Again, round2] = [0, 1, 2].map((n) => world.server.responsesCall(n)) as [
      ResponsesRequestBody,
      ResponsesRequestBody,
      ResponsesRequestBody,
    ];
    // Within a round codex keeps one session; the next round is another session.
    expect(round1.prompt_cache_key).toBe(round1Again.prompt_cache_key);
    expect(round2.prompt_cache_key).not.toBe(round1.prompt_cache_key);
    // Round 2's conversation holds nothing of round 1's: no tool call, no tool output, no final message.
    const round2Items = (round2.input ?? []).map((item) => item.type);
    expect(round2Items).not.toContain('function_call');
    expect(toolOutputs(round2)).toEqual([]);
    const round2Input = JSON.stringify(round2.input);
    expect(round2Input.includes('report file:'), 'round 1’s shell output reached round 2').toBe(false);
    expect(round2Input.includes('You are a fresh agent running round 2')).toBe(true);
    // --ephemeral: codex saved no rollout a later process could resume.
    expect(world.home.sessionFiles()).toEqual([]);
  });

  it('the child cannot see ralph’s own MCP server, even when the user registered it with codex', async () => {
    const markers = await mkdtemp(join(tmpdir(), 'ralph-mcp-markers-'));
    onCleanup(() => rm(markers, { recursive: true, force: true }));
    const ralphMarker = join(markers, 'ralph-started');
    const notesMarker = join(markers, 'notes-started');
    const world = await codexWorld(twoRounds(), () => userMcpServers(ralphMarker, notesMarker));
    const out = await world.ralphRun('Write note.txt').finished;
    expect(out.code).toBe(0);

    const calls = world.server.responsesCalls();
    expect(calls).toHaveLength(3);
    for (const body of calls) {
      const tools = offeredTools(body);
      // The user's other server reaches the child: codex did read the user's MCP servers...
      expect(tools).toContain('mcp__notes.note');
      // ...but no tool of the one named ralph.
      expect(tools.filter((name) => name.includes('ralph'))).toEqual([]);
    }
    expect(existsSync(notesMarker)).toBe(true);
    expect(existsSync(ralphMarker)).toBe(false);
  });
});
