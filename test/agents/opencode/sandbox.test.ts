import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { opencodeWorld, REPORT_TOOL } from './harness.js';

describe('ralph run --agent opencode --sandbox: the real opencode inside ralph’s sandbox', () => {
  it('writes the workspace with opencode’s write and completes', async () => {
    const world = await opencodeWorld((workspace) =>
      inOrder(
        call('write', { filePath: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });
});
