import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnRalph } from '../../fixtures/cli-agents/harness.js';
import {
  hasTool,
  isFirstTurn,
  type Reply,
  startAnthropicServer,
  toolResults,
} from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

/** A workspace, a scripted model whose first turn is `work` and whose second reports complete, and a fresh HOME. */
async function setUp(work: (workspace: string) => Reply) {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  const server = await startAnthropicServer([
    {
      when: (request) => hasTool(request, 'StructuredOutput') && isFirstTurn(request),
      reply: work(workspace),
    },
    {
      when: (request) => hasTool(request, 'StructuredOutput') && toolResults(request).length > 0,
      reply: { toolUse: { name: 'StructuredOutput', input: completeReport } },
    },
  ]);
  cleanups.push(() => server.close());
  const home = await claudeHome(server.url);
  cleanups.push(() => home.cleanup());
  const args = ['--agent', 'claude', '--claude-path', claudePath, '--cwd', workspace, '--json', '--sandbox'];
  const ralphRun = () => spawnRalph(['run', 'Write note.txt', ...args], { env: home.env }).finished;
  return { workspace, server, home, ralphRun };
}

describe('ralph run --agent claude --sandbox: the real Claude Code inside ralph’s sandbox', () => {
  it('writes the workspace with claude’s Write and completes', async () => {
    const { workspace, server, ralphRun } = await setUp((dir) => ({
      toolUse: { name: 'Write', input: { file_path: join(dir, 'note.txt'), content: SANDBOX_NOTE } },
    }));
    expectSandboxedRound(await ralphRun(), workspace, server.callerNamespaces);
  });

  it('its Bash runs under the user’s allow rule, and the user’s opt-outs reach it', async () => {
    const { workspace, server, home, ralphRun } = await setUp(() => ({
      toolUse: {
        name: 'Bash',
        input: {
          command: `printf 'written in the sandbox\\n' > note.txt; printf '%s %s\\n' "$DISABLE_TELEMETRY" "$DO_NOT_TRACK" > opt-outs.txt`,
        },
      },
    }));
    // The allow rule lives in the user's ~/.claude/settings.json; the opt-outs are in their environment (dropped,
    // Claude Code would send the telemetry they turned off).
    await mkdir(join(home.home, '.claude'));
    await writeFile(
      join(home.home, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash'] } }),
    );
    Object.assign(home.env, { DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1' });

    expectSandboxedRound(await ralphRun(), workspace, server.callerNamespaces);
    expect(await readFile(join(workspace, 'opt-outs.txt'), 'utf8')).toBe('1 1\n');
  });
});
