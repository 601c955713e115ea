import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { copilotWorld, REPORT_TOOL } from './harness.js';

describe('ralph run --agent copilot --sandbox: the real copilot inside ralph’s sandbox', () => {
  // Its provider settings are COPILOT_* variables (offline, BYOK), which the preset lets in.
  it('writes the workspace with copilot’s create and completes', async () => {
    const world = await copilotWorld((workspace) =>
      inOrder(
        call('create', { path: join(workspace, 'note.txt'), file_text: SANDBOX_NOTE }),
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });
});
