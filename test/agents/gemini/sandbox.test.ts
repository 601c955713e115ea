import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { geminiWorld, REPORT_TOOL } from './harness.js';

describe('ralph run --agent gemini --sandbox: the real gemini inside ralph’s sandbox', () => {
  it('writes the workspace with gemini’s write_file and completes', async () => {
    const world = await geminiWorld((workspace) =>
      inOrder(
        call('write_file', { file_path: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });
});
