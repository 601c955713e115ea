import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, it } from 'vitest';
import { spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { hasTool, isFirstTurn, startAnthropicServer, toolResults } from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

describe('ralph run --agent claude --sandbox: the real Claude Code inside ralph’s sandbox', () => {
  it('writes the workspace with claude’s Write and completes', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
    cleanups.push(() => rm(workspace, { recursive: true, force: true }));
    const server = await startAnthropicServer([
      {
        when: (request) => hasTool(request, 'StructuredOutput') && isFirstTurn(request),
        reply: {
          toolUse: {
            name: 'Write',
            input: { file_path: join(workspace, 'note.txt'), content: SANDBOX_NOTE },
          },
        },
      },
      {
        when: (request) => hasTool(request, 'StructuredOutput') && toolResults(request).length > 0,
        reply: { toolUse: { name: 'StructuredOutput', input: completeReport } },
      },
    ]);
    cleanups.push(() => server.close());
    const home = await claudeHome(server.url);
    cleanups.push(() => home.cleanup());

    const args = ['--agent', 'claude', '--claude-path', claudePath, '--cwd', workspace];
    const out = await spawnRalph(['run', 'Write note.txt', ...args, '--json', '--sandbox'], { env: home.env })
      .finished;
    expectSandboxedRound(out, workspace, server.callerNamespaces);
  });
});
