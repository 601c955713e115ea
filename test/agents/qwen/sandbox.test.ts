import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder } from '../support/chat-server.js';
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
});
