import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startAnthropicServer, toolResults } from '../support/anthropic-server.js';
import { call, inOrder } from '../support/chat-server.js';
import { onCleanup } from '../support/cleanups.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { qwenWorld } from './harness.js';

describe('ralph run --agent qwen --sandbox: the real qwen inside ralph’s sandbox', () => {
  it('writes the workspace with qwen’s write_file and completes', async () => {
    const world = await qwenWorld((workspace) =>
      inOrder(
        call('write_file', { file_path: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
        call('structured_output', completeReport),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });

  it('finds the user’s settings in QWEN_HOME and their Anthropic key and base URL in the environment', async () => {
    const world = await qwenWorld(() => inOrder());
    const anthropic = await startAnthropicServer([
      {
        when: (request) => toolResults(request).length === 0,
        reply: {
          toolUse: {
            name: 'write_file',
            input: { file_path: join(world.workspace, 'note.txt'), content: SANDBOX_NOTE },
          },
        },
      },
      {
        when: (request) => toolResults(request).length > 0,
        reply: { toolUse: { name: 'structured_output', input: completeReport } },
      },
    ]);
    onCleanup(() => anthropic.close());
    // The user keeps qwen's folder elsewhere in their home (QWEN_HOME), which the private home would not have, and
    // uses the `anthropic` auth type: qwen reads its key and base URL from ANTHROPIC_* alone.
    const qwenHome = join(world.home.dir, 'qwen-config');
    renameSync(world.home.configDir, qwenHome);
    rmSync(join(qwenHome, '.env'));
    const settings = {
      security: { auth: { selectedType: 'anthropic' } },
      model: { name: 'claude-x' },
      $version: 4,
    };
    writeFileSync(join(qwenHome, 'settings.json'), JSON.stringify(settings));
    Object.assign(world.home.env, {
      QWEN_HOME: qwenHome,
      ANTHROPIC_API_KEY: 'user-key',
      ANTHROPIC_BASE_URL: anthropic.url,
    });

    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, anthropic.callerNamespaces);
  });
});
