import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { droidWorld, LOAD_REPORT_TOOL, REPORT_TOOL } from './harness.js';

describe('ralph run --agent droid --sandbox: the real droid inside ralph’s sandbox', () => {
  it('writes the workspace with droid’s Create and completes', async () => {
    const world = await droidWorld((workspace) =>
      inOrder(
        call('Create', { file_path: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
        LOAD_REPORT_TOOL,
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });
});
