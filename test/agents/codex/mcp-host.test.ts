import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OBJECTIVE_EMPTY, WORKER_REPORT_CAVEAT } from '../../../src/index.js';
import { agentCommand } from '../../support/processes.js';
import { codexPath, ralphMain } from '../support/codex-env.js';
import { call, inOrder, say } from '../support/responses-server.js';
import { type CodexWorld, codexWorld, offeredTools, outputText, toolOutputs } from './harness.js';

/** codex puts each MCP server's tools in a namespace named `mcp__<server>`; the model calls a tool by both. */
const RALPH_NAMESPACE = 'mcp__ralph';

/**
 * The user's codex config with `ralph mcp` registered as the server `ralph`, its rounds played by the fake agent
 * report-file.mjs (one round that writes round-1.txt and reports complete) in the workspace. A server's tools need
 * approval by default, and `codex exec` cannot ask: the user approves ralph's tools up front.
 */
function ralphMcpServer(workspace: string): string {
  const fakeAgent = agentCommand('report-file.mjs')
    .map((part) => JSON.stringify(part))
    .join(' ');
  return [
    '[mcp_servers.ralph]',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([ralphMain, 'mcp', '--agent-command', fakeAgent, '--cwd', workspace])}`,
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}

/** Starts a world whose model calls ralph with `args`, then ends the turn; the user's config registers ralph mcp. */
const hostWorld = (args: unknown): Promise<CodexWorld> =>
  codexWorld(
    inOrder(call('ralph', args, RALPH_NAMESPACE), say('The ralph tool has answered.')),
    ralphMcpServer,
  );

/** `codex exec <prompt>` in the world's workspace, with its CODEX_HOME; resolves with its exit code. */
function codexExec(world: CodexWorld, prompt: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    codexPath,
    [
      'exec',
      '-C',
      world.workspace,
      '--skip-git-repo-check',
      '--ephemeral',
      '--sandbox',
      'workspace-write',
      '-',
    ],
    { cwd: world.workspace, env: world.home.env, stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(prompt);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/** What codex handed back to the model for its ralph call: the tool output in the request after the call. */
function ralphOutput(world: CodexWorld): string {
  const [output] = toolOutputs(world.server.responsesCall(1));
  return outputText(output?.output);
}

describe('ralph mcp registered in the real codex (config.toml), called by the scripted model', () => {
  it('codex offers the model the ralph tool, under its server’s namespace', async () => {
    const world = await hostWorld({ objective: 'Write round-1.txt' });
    const out = await codexExec(world, 'Run a Ralph loop to write round-1.txt');
    expect(out.code, out.stderr).toBe(0);

    expect(offeredTools(world.server.responsesCall(0))).toContain(`${RALPH_NAMESPACE}.ralph`);
  });

  // codex 0.171 hands the model a result's structuredContent, not its text content, when there is one: ralph mcp
  // puts the native text in structuredContent.text beside the envelope, so the model reads both.
  it('a successful call runs the loop and hands the model the envelope with the native text', async () => {
    const world = await hostWorld({ objective: 'Write round-1.txt' });
    const out = await codexExec(world, 'Run a Ralph loop to write round-1.txt');
    expect(out.code, out.stderr).toBe(0);

    expect(readFileSync(`${world.workspace}/round-1.txt`, 'utf8')).toBe('written by round 1\n');
    const output = ralphOutput(world);
    expect(JSON.parse(output.slice(output.indexOf('{')))).toEqual({
      text: expect.stringContaining('Ralph complete:'),
      runId: expect.any(String),
      agentsStarted: 1,
      result: {
        status: 'complete',
        rounds: 1,
        report: {
          status: 'complete',
          summary: 'round 1 finished',
          evidence: ['round-1.txt written'],
          nextSteps: [],
          blocker: null,
        },
      },
    });
  });

  it('the native result text the model reads carries the worker-report caveat', async () => {
    const world = await hostWorld({ objective: 'Write round-1.txt' });
    const out = await codexExec(world, 'Run a Ralph loop to write round-1.txt');
    expect(out.code, out.stderr).toBe(0);

    const output = ralphOutput(world);
    expect(output).toContain('Ralph complete: the worker reported the objective complete after 1 round.');
    expect(output).toContain(WORKER_REPORT_CAVEAT);
  });

  // ralph mcp answers with an isError result whose text is the seed's message. codex 0.171 hands the model an
  // error result's text the same way as a success's (no error flag reaches the Responses API), so the model
  // learns of the refusal from that text alone: it must be there, and no envelope with it.
  it('a refused call (empty objective) comes back to the model with the seed’s message, and no envelope', async () => {
    const world = await hostWorld({ objective: '' });
    const out = await codexExec(world, 'Run a Ralph loop');
    expect(out.code, out.stderr).toBe(0);

    const output = ralphOutput(world);
    expect(output).toContain(OBJECTIVE_EMPTY);
    expect(output).not.toContain('runId');
    expect(output).not.toContain('round-1.txt');
  });
});
