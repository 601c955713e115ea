import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OBJECTIVE_EMPTY, WORKER_REPORT_CAVEAT } from '../../../src/contract/messages.js';
import { renderFullResultText } from '../../../src/render/result-text.js';
import { agentCommand } from '../../support/processes.js';
import {
  isFirstTurn,
  type MessageBlock,
  startAnthropicServer,
  toolResults,
} from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath, cliPath } from '../support/claude-env.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

/** `ralph mcp` over a fake agent that reports complete in round 1, as a user registers it with --mcp-config. */
const mcpConfig = JSON.stringify({
  mcpServers: {
    ralph: {
      command: process.execPath,
      args: [cliPath, 'mcp', '--agent-command', agentCommand('stdout-report.mjs').join(' ')],
    },
  },
});

/**
 * Runs the real claude with ralph registered over MCP; the scripted model calls `mcp__ralph__ralph` with `args`,
 * then ends the turn. Resolves with the tool_result block Claude Code handed the model.
 */
async function callRalphThroughClaude(args: Record<string, unknown>): Promise<MessageBlock> {
  const server = await startAnthropicServer([
    { when: isFirstTurn, reply: { toolUse: { name: 'mcp__ralph__ralph', input: args } } },
    { when: (request) => toolResults(request).length > 0, reply: { text: 'Noted.' } },
  ]);
  cleanups.push(() => server.close());
  const home = await claudeHome(server.url);
  cleanups.push(() => home.cleanup());
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-host-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));

  const child = spawn(
    claudePath,
    [
      '-p',
      '--output-format',
      'json',
      '--mcp-config',
      mcpConfig,
      '--strict-mcp-config',
      '--allowedTools',
      'mcp__ralph__ralph',
    ],
    { cwd: workspace, env: home.env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  child.stdin.end('Use ralph to do the work.');
  const code = await new Promise((resolve) => child.on('close', resolve));

  expect(code, stderr).toBe(0);
  expect(server.pendingTurns()).toBe(0);
  expect(server.unmatched).toEqual([]);
  const [result, ...others] = toolResults(server.turnRequests()[1]!);
  expect(others).toEqual([]);
  return result!;
}

/**
 * Every text the model can read verbatim in a tool result: its text blocks or its string content, and, where that
 * string is JSON (Claude Code hands over a result's structuredContent as JSON), each string value inside it.
 */
function readableTexts(result: MessageBlock): string[] {
  const texts =
    typeof result.content === 'string'
      ? [result.content]
      : ((result.content ?? []) as MessageBlock[]).flatMap((block) =>
          typeof block.text === 'string' ? [block.text] : [],
        );
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : typeof value === 'object' && value !== null
        ? Object.values(value).flatMap(strings)
        : [];
  return texts.flatMap((text) => {
    try {
      return [text, ...strings(JSON.parse(text))];
    } catch {
      return [text];
    }
  });
}

describe('ralph mcp registered in the real Claude Code', () => {
  it('the model reads the native result text, caveat included', async () => {
    const result = await callRalphThroughClaude({ objective: 'Finish the work' });

    expect(result.is_error).toBeFalsy();
    const native = renderFullResultText({
      runId: 'not in the text',
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
    expect(native).toContain(WORKER_REPORT_CAVEAT);
    expect(readableTexts(result)).toContain(native);
    // What Claude Code 2.1 hands over is the structuredContent, as JSON: the envelope reaches the model beside it.
    expect(JSON.parse(String(result.content))).toEqual({
      text: native,
      runId: expect.any(String),
      agentsStarted: 1,
      result: expect.objectContaining({ status: 'complete', rounds: 1 }),
    });
  });

  it('a call with an empty objective comes back to the model as an error carrying the seed’s message', async () => {
    const result = await callRalphThroughClaude({ objective: '' });

    expect(result.is_error).toBe(true);
    expect(readableTexts(result).join('\n')).toContain(OBJECTIVE_EMPTY);
  });
});
