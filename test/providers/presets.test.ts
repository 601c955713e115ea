import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claudeProvider,
  codexProvider,
  createProviderRegistry,
  createRalphTool,
  type RalphReport,
  renderRoundPrompt,
  reportJsonSchema,
  type SubagentProvider,
} from '../../src/index.js';
import { binDir, cleanEnv, useScratch } from '../support/processes.js';
import { rejection } from '../support/tool.js';

const s = useScratch();

interface FakeRecord {
  argv: string[];
  stdin: string;
  cwd: string;
  env: Record<string, string>;
}

const recordFile = () => join(s.logs, 'fake.jsonl');
const fakeEnv = (extra: Record<string, string> = {}) => ({
  FAKE_AGENT_RECORD: recordFile(),
  FIXTURE_PID_LOG: s.pidLog,
  ...extra,
});

async function records(): Promise<FakeRecord[]> {
  return (await readFile(recordFile(), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FakeRecord);
}

function toolOver(provider: SubagentProvider) {
  const providers = createProviderRegistry();
  providers.register(provider);
  return createRalphTool({ subagentProvider: provider.name }, { providers });
}

const agent = () => ({ id: 'parent', cwd: s.workspace });

const continueReport: RalphReport = {
  status: 'continue',
  summary: 'half way',
  evidence: [],
  nextSteps: ['the other half'],
  blocker: null,
};

const childFailed =
  'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.';

describe('the claude preset runs Claude Code as a fresh, non-interactive, non-persisted child', () => {
  const claude = (env: Record<string, string> = {}, options: Parameters<typeof claudeProvider>[0] = {}) =>
    claudeProvider({ path: join(binDir, 'claude'), baseEnv: cleanEnv(), env: fakeEnv(env), ...options });

  it('passes the documented argv, the prompt on stdin, and reads the report from structured_output', async () => {
    const provider = claude();
    expect(provider.name).toBe('claude');
    // Claude Code says what each round cost, so a cost budget can hold over it; like every command agent it can
    // run in ralph's sandbox.
    expect(provider.capabilities).toEqual({
      structuredOutput: true,
      inheritsParentContext: false,
      reportsCost: true,
      sandbox: true,
    });
    const envelope = await toolOver(provider).execute(
      { objective: 'fix the bug', maxRounds: 3 },
      { agent: agent() },
    );

    expect(envelope.result).toEqual({
      status: 'complete',
      rounds: 1,
      report: {
        status: 'complete',
        summary: 'fake claude finished',
        evidence: ['fake check passed'],
        nextSteps: [],
        blocker: null,
      },
    });
    const [seen] = await records();
    expect(seen?.argv).toEqual([
      '-p',
      '--output-format',
      'json',
      '--json-schema',
      JSON.stringify(reportJsonSchema),
      '--no-session-persistence',
      '--permission-mode',
      'acceptEdits',
      '--strict-mcp-config',
      '--mcp-config',
      '{"mcpServers":{}}',
    ]);
    expect(seen?.stdin).toBe(
      renderRoundPrompt({ objective: 'fix the bug', round: 1, maxRounds: 3, handoff: null }),
    );
    expect(seen?.cwd).toBe(await realpath(s.workspace));
    expect(seen?.env.RALPH_ROUND).toBe('1');
    expect(seen?.env.RALPH_DEPTH).toBe('1');
    expect(await readFile(join(s.workspace, 'claude-was-here.txt'), 'utf8')).toBe(
      'edited by the fake claude\n',
    );
  });

  it('appends extra arguments, and takes another permission mode and setting sources when told', async () => {
    const provider = claude(
      {},
      {
        extraArgs: ['--model', 'sonnet'],
        permissionMode: 'bypassPermissions',
        settingSources: 'project,local',
      },
    );
    await toolOver(provider).execute({ objective: 'x' }, { agent: agent() });
    const [seen] = await records();
    expect(seen?.argv.slice(5)).toEqual([
      '--no-session-persistence',
      '--permission-mode',
      'bypassPermissions',
      '--strict-mcp-config',
      '--mcp-config',
      '{"mcpServers":{}}',
      '--setting-sources',
      'project,local',
      '--model',
      'sonnet',
    ]);
  });

  it('starts a fresh child every round, each handed the previous report', async () => {
    const provider = claude({ FAKE_REPORT: JSON.stringify(continueReport) });
    const envelope = await toolOver(provider).execute({ objective: 'x', maxRounds: 2 }, { agent: agent() });
    expect(envelope.result.status).toBe('budget-limited');
    expect(envelope.result.rounds).toBe(2);
    const [, second] = await records();
    expect(second?.stdin).toBe(
      renderRoundPrompt({ objective: 'x', round: 2, maxRounds: 2, handoff: continueReport }),
    );
    expect(new Set((await s.pids()).map(String)).size).toBe(2);
  });

  it('an error result that exits non-zero is an ordinary child failure', async () => {
    const error = await rejection(
      toolOver(claude({ FAKE_CLAUDE_MODE: 'error-result' })).execute({ objective: 'x' }, { agent: agent() }),
    );
    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(childFailed);
    expect(error.detail).toMatch(
      /exited with code 1; stdout ends with:\n.*"subtype":"error_during_execution"/,
    );
  });

  it('an error subtype is a child failure even when claude exits 0', async () => {
    const error = await rejection(
      toolOver(claude({ FAKE_CLAUDE_MODE: 'error-exit-0' })).execute({ objective: 'x' }, { agent: agent() }),
    );
    expect(error.message).toBe(childFailed);
    expect(error.detail).toBe(
      'claude reported error_max_structured_output_retries: could not produce valid structured output',
    );
  });

  it('a success without structured output is a missing report', async () => {
    const error = await rejection(
      toolOver(claude({ FAKE_CLAUDE_MODE: 'no-structured-output' })).execute(
        { objective: 'x' },
        { agent: agent() },
      ),
    );
    expect(error.message).toBe('Ralph workflow failed: round 1 child finished without a structured report');
  });

  it('a structured output that breaks the report rules is a malformed report', async () => {
    const bad = { ...continueReport, nextSteps: [] };
    const error = await rejection(
      toolOver(claude({ FAKE_REPORT: JSON.stringify(bad) })).execute({ objective: 'x' }, { agent: agent() }),
    );
    expect(error.message).toBe(
      'Ralph workflow failed: round 1 report is malformed: nextSteps: a continue report must list next steps',
    );
  });
});

describe('the codex preset runs `codex exec` as a fresh, ephemeral child', () => {
  const codex = (env: Record<string, string> = {}, options: Parameters<typeof codexProvider>[0] = {}) =>
    codexProvider({ path: join(binDir, 'codex'), baseEnv: cleanEnv(), env: fakeEnv(env), ...options });

  it('passes the documented argv, the prompt on stdin, and reads the report from the -o file', async () => {
    const provider = codex({ FAKE_CODEX_STDOUT: JSON.stringify(continueReport) });
    expect(provider.name).toBe('codex');
    const envelope = await toolOver(provider).execute(
      { objective: 'fix the bug', maxRounds: 4 },
      { agent: agent() },
    );

    // stdout said "continue"; the -o file said "complete": the file is the report.
    expect(envelope.result.status).toBe('complete');
    expect(envelope.result.report.summary).toBe('fake codex finished');
    const [seen] = await records();
    if (seen === undefined) throw new Error('the fake codex did not run');
    expect(seen.argv).toEqual([
      'exec',
      '--json',
      '--output-schema',
      seen.env.RALPH_SCHEMA_FILE,
      '-o',
      seen.env.RALPH_REPORT_FILE,
      '-C',
      s.workspace,
      '--skip-git-repo-check',
      '--ephemeral',
      '--sandbox',
      'workspace-write',
      '-c',
      'mcp_servers.ralph.enabled=false',
      '-c',
      'mcp_servers.ralph.command="ralph"',
      '-',
    ]);
    expect(seen.stdin).toBe(
      renderRoundPrompt({ objective: 'fix the bug', round: 1, maxRounds: 4, handoff: null }),
    );
    expect(seen.cwd).toBe(await realpath(s.workspace));
    expect(await readFile(join(s.workspace, 'codex-was-here.txt'), 'utf8')).toBe(
      'edited by the fake codex\n',
    );
  });

  it('puts extra arguments before the stdin marker, and takes other sandbox and MCP server names', async () => {
    const provider = codex(
      {},
      {
        extraArgs: ['-m', 'gpt-5-codex'],
        sandbox: 'danger-full-access',
        ralphMcpServers: ['ralph', 'ralph-dev'],
      },
    );
    await toolOver(provider).execute({ objective: 'x' }, { agent: agent() });
    const [seen] = await records();
    expect(seen?.argv.slice(10)).toEqual([
      '--sandbox',
      'danger-full-access',
      '-c',
      'mcp_servers.ralph.enabled=false',
      '-c',
      'mcp_servers.ralph.command="ralph"',
      '-c',
      'mcp_servers.ralph-dev.enabled=false',
      '-c',
      'mcp_servers.ralph-dev.command="ralph"',
      '-m',
      'gpt-5-codex',
      '-',
    ]);
  });

  it('where CODEX_HOME lies in the temporary folder, TMPDIR is a fresh folder in the round folder, else the user’s', async () => {
    const codexHome = join(s.logs, 'codex-home');
    await mkdir(codexHome);
    await toolOver(codex({ CODEX_HOME: codexHome, TMPDIR: s.logs })).execute(
      { objective: 'x' },
      { agent: agent() },
    );
    // Outside /tmp (which always counts) and outside TMPDIR; the fake codex does not need it to exist.
    await toolOver(codex({ CODEX_HOME: '/srv/ralph-test-codex-home', TMPDIR: s.workspace })).execute(
      { objective: 'x' },
      { agent: agent() },
    );
    const [inTemp, elsewhere] = await records();
    // Codex would not make its sandbox helper's alias in a CODEX_HOME under its TMPDIR: it gets one that is not.
    expect(inTemp?.env.TMPDIR).toBe(join(dirname(inTemp?.env.RALPH_REPORT_FILE ?? ''), 'codex-tmp'));
    expect(elsewhere?.env.TMPDIR).toBe(s.workspace);
  });

  it('refuses an MCP server name a -c path cannot address', () => {
    expect(() => codexProvider({ ralphMcpServers: ['my.server'] })).toThrow(
      'cannot disable the codex MCP server "my.server"',
    );
  });

  it('a codex that exits non-zero is an ordinary child failure carrying its stderr', async () => {
    const error = await rejection(
      toolOver(codex({ FAKE_CODEX_MODE: 'fail' })).execute({ objective: 'x' }, { agent: agent() }),
    );
    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(childFailed);
    expect(error.detail).toMatch(/exited with code 1; stderr ends with:\n[\s\S]*ERROR: stream disconnected/);
  });

  it('a final message that is not JSON is a malformed report', async () => {
    const error = await rejection(
      toolOver(codex({ FAKE_CODEX_MODE: 'prose' })).execute({ objective: 'x' }, { agent: agent() }),
    );
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toMatch(
      /^Ralph workflow failed: round 1 report is malformed: the report file \/\S+\/report\.json is not JSON: \S/,
    );
  });
});

describe('a preset whose executable is missing', () => {
  it('fails the workflow at the start of round 1', async () => {
    const provider = claudeProvider({ path: join(s.workspace, 'no-claude-here'), baseEnv: cleanEnv() });
    const error = await rejection(toolOver(provider).execute({ objective: 'x' }, { agent: agent() }));
    expect(error.message).toMatch(
      /^Ralph workflow failed: subagent provider "claude" failed to start round 1: could not start agent command ".*no-claude-here": spawn .* ENOENT$/,
    );
  });
});
