import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { geminiWorld, REPORT_TOOL } from './harness.js';

/** The model writes note.txt with gemini's write_file, reports complete, and ends its turn. */
const writeAndComplete = (workspace: string) =>
  inOrder(
    call('write_file', { file_path: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
    call(REPORT_TOOL, completeReport),
    say('Reported.'),
  );

describe('ralph run --agent gemini --sandbox: the real gemini inside ralph’s sandbox', () => {
  it('writes the workspace with gemini’s write_file and completes', async () => {
    const world = await geminiWorld(writeAndComplete);
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });

  it('finds the key in the user’s own GEMINI_CLI_HOME and the gateway’s base URL in the environment', async () => {
    const world = await geminiWorld(writeAndComplete);
    // The user's .gemini lives in a GEMINI_CLI_HOME of their own (which the private home would not have), its .env
    // holds only the key, and the gateway's base URL is in their environment: dropped, gemini would send the key to
    // Google's endpoint instead.
    const cliHome = join(world.home.dir, 'gemini-cli-home');
    mkdirSync(cliHome);
    renameSync(world.home.configDir, join(cliHome, '.gemini'));
    writeFileSync(join(cliHome, '.gemini', '.env'), 'GEMINI_API_KEY=user-key\n');
    Object.assign(world.home.env, { GEMINI_CLI_HOME: cliHome, GOOGLE_GEMINI_BASE_URL: world.server.baseUrl });

    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });
});
