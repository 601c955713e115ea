import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reportJsonSchema } from '../../../src/contract/round-report.js';
import { spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { agentCommand } from '../../support/processes.js';
import {
  type AnthropicServer,
  hasTool,
  isFirstTurn,
  type MessagesRequest,
  messageText,
  startAnthropicServer,
  type Turn,
  toolResults,
} from '../support/anthropic-server.js';
import { assertInstalled, type ClaudeHome, claudeHome, claudePath, cliPath } from '../support/claude-env.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

/** A workspace, a scripted server whose turns may name it, and a fresh HOME pointing claude at the server. */
async function setUp(turns: (workspace: string) => Turn[]) {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  const server = await startAnthropicServer(turns(workspace));
  cleanups.push(() => server.close());
  const home = await claudeHome(server.url);
  cleanups.push(() => home.cleanup());
  return { server, home, workspace };
}

/** The text of the prompt a conversation opened with. */
const prompt = (request: MessagesRequest): string => messageText(request.messages[0]);
const inRound = (round: number) => (request: MessagesRequest) =>
  hasTool(request, 'StructuredOutput') && prompt(request).includes(`running round ${round} of at most`);

/** `ralph mcp` serving a fake agent, as a user would register it for Claude Code. */
const ralphMcpServer = {
  command: process.execPath,
  args: [cliPath, 'mcp', '--agent-command', agentCommand('stdout-report.mjs').join(' ')],
};

const roundOneReport = {
  status: 'continue',
  summary: 'ROUND-ONE: wrote notes.txt with the first line',
  evidence: ['notes.txt exists'],
  nextSteps: ['add the second line to notes.txt'],
  blocker: null,
};
const roundTwoReport = {
  status: 'complete',
  summary: 'ROUND-TWO: notes.txt checked',
  evidence: ['notes.txt holds the first line'],
  nextSteps: [],
  blocker: null,
};
/** A valid report the model writes as text in round 2: a reader of text instead of structured output takes it. */
const decoyReport = { ...roundTwoReport, status: 'blocked', summary: 'DECOY in text', blocker: 'decoy' };

function twoRoundScript(workspace: string): Turn[] {
  return [
    {
      when: (request: MessagesRequest) => inRound(1)(request) && isFirstTurn(request),
      reply: {
        toolUse: {
          name: 'Write',
          input: { file_path: join(workspace, 'notes.txt'), content: 'first line\n' },
        },
      },
    },
    {
      when: (request: MessagesRequest) => inRound(1)(request) && toolResults(request).length > 0,
      reply: { toolUse: { name: 'StructuredOutput', input: roundOneReport } },
    },
    {
      when: (request: MessagesRequest) => inRound(2)(request) && isFirstTurn(request),
      reply: {
        text: JSON.stringify(decoyReport),
        toolUse: { name: 'StructuredOutput', input: roundTwoReport },
      },
    },
  ];
}

async function runTwoRounds(home: ClaudeHome, workspace: string) {
  const { finished } = spawnRalph(
    [
      'run',
      'Write notes.txt',
      '--agent',
      'claude',
      '--claude-path',
      claudePath,
      '--cwd',
      workspace,
      '--json',
    ],
    { env: home.env },
  );
  return finished;
}

describe('ralph run --agent claude drives the real Claude Code, one fresh process per round', () => {
  it('round 1 writes a file with claude’s Write tool and continues, round 2 completes: the envelope says so', async () => {
    const { server, home, workspace } = await setUp(twoRoundScript);
    const out = await runTwoRounds(home, workspace);

    expect(out.code, out.stderr).toBe(0);
    expect(server.pendingTurns()).toBe(0);
    // No model call beyond the script: no third round, no turn after a StructuredOutput call.
    expect(server.unmatched).toEqual([]);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('first line\n');
    expect(JSON.parse(out.stdout)).toEqual({
      runId: expect.any(String),
      agentsStarted: 2,
      result: { status: 'complete', rounds: 2, report: roundTwoReport },
    });
  });
});

describe('what the real Claude Code child sends and keeps', () => {
  let server: AnthropicServer;
  let home: ClaudeHome;
  let out: Awaited<ReturnType<typeof runTwoRounds>>;

  // One run for the checks below: each reads a different part of what claude sent.
  beforeAll(async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
    server = await startAnthropicServer(twoRoundScript(workspace));
    home = await claudeHome(server.url);
    await home.registerUserMcpServer('ralph', ralphMcpServer);
    out = await runTwoRounds(home, workspace);
    await rm(workspace, { recursive: true, force: true });
    return async () => {
      await server.close();
      await home.cleanup();
    };
  });

  it('the run succeeds with the report claude returned as structured output, not the report in its text', () => {
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).result.report).toEqual(roundTwoReport);
    expect(JSON.parse(out.stdout).result.report).not.toEqual(decoyReport);
  });

  it('the schema claude hands the model (the StructuredOutput tool’s input_schema) is the report schema', () => {
    const [first, ...rest] = server.turnRequests();
    for (const request of [first!, ...rest]) {
      const tool = request.tools?.find((candidate) => candidate.name === 'StructuredOutput');
      expect(tool?.input_schema).toEqual(reportJsonSchema);
    }
  });

  it('each round is a fresh process: two pids, each round’s first request holds only its own prompt', () => {
    const requests = server.requests.filter((logged) => logged.turn !== undefined);
    expect(requests.map((logged) => logged.turn)).toEqual([0, 1, 2]);
    const [writeFile, reportOne, reportTwo] = requests;
    expect(writeFile!.pid).toEqual(expect.any(Number));
    expect(reportOne!.pid).toBe(writeFile!.pid);
    expect(reportTwo!.pid).toEqual(expect.any(Number));
    expect(reportTwo!.pid).not.toBe(writeFile!.pid);

    const roundTwo = reportTwo!.body as MessagesRequest;
    expect(roundTwo.messages.filter((message) => message.role === 'assistant')).toEqual([]);
    expect(toolResults(roundTwo)).toEqual([]);
    const all = JSON.stringify(roundTwo.messages);
    expect(all).not.toContain('running round 1 of');
    expect(all).not.toContain('File created successfully');
    // The handoff is what reaches round 2 from round 1, through the prompt.
    expect(prompt(roundTwo)).toContain(roundOneReport.summary);
  });

  it('no session is saved under the fresh HOME', async () => {
    expect(await home.sessionFiles()).toEqual([]);
  });

  it('the child sees no ralph MCP tool although the user registered ralph in ~/.claude.json', () => {
    // Neither as a tool nor as a deferred tool named in the context (where Claude Code 2.1 lists MCP tools).
    for (const request of server.turnRequests()) {
      const names = (request.tools ?? []).map((tool) => tool.name);
      expect(names).toContain('Write');
      expect(names.filter((name) => name.startsWith('mcp__'))).toEqual([]);
    }
    expect(server.requests.some((logged) => JSON.stringify(logged.body ?? '').includes('mcp__ralph'))).toBe(
      false,
    );
  });
});

describe('the user-level registration the child ignores is one Claude Code loads', () => {
  it('claude without ralph’s MCP flags hands the model the ralph tool from ~/.claude.json', async () => {
    const { server, home, workspace } = await setUp(() => [
      { when: (request) => isFirstTurn(request), reply: { text: 'nothing to do' } },
    ]);
    await home.registerUserMcpServer('ralph', ralphMcpServer);
    const child = spawn(claudePath, ['-p', '--output-format', 'json'], {
      cwd: workspace,
      env: home.env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.stdin.end('list your tools');
    const code = await new Promise((resolve) => child.on('close', resolve));

    expect(code).toBe(0);
    // Claude Code 2.1 defers MCP tools behind ToolSearch: their names are listed in the context, not in `tools`.
    expect(JSON.stringify(server.turnRequests()[0])).toContain('mcp__ralph__ralph');
  });
});
