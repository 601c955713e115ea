import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

  it('its shell reaches the user’s sign-in in their own FACTORY_HOME_OVERRIDE through the round’s home', async () => {
    // The round's home links the user's sign-in files; here the user's .factory lives in a FACTORY_HOME_OVERRIDE of
    // their own, which the private home would not have: the link would lead nowhere.
    const command = `printf 'written in the sandbox\\n' > note.txt; cat "$FACTORY_HOME_OVERRIDE/.factory/auth.json" > auth.txt`;
    const world = await droidWorld(() =>
      inOrder(
        call('Execute', { command, riskLevel: 'low', riskLevelReason: 'writes two files in the workspace' }),
        LOAD_REPORT_TOOL,
        call(REPORT_TOOL, completeReport),
        say('Reported.'),
      ),
    );
    const factoryHome = join(world.home.dir, 'factory-home');
    mkdirSync(factoryHome);
    renameSync(world.home.configDir, join(factoryHome, '.factory'));
    writeFileSync(join(factoryHome, '.factory', 'auth.json'), '{"signedIn":"the user"}\n');
    world.home.env.FACTORY_HOME_OVERRIDE = factoryHome;

    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
    expect(readFileSync(join(world.workspace, 'auth.txt'), 'utf8')).toBe('{"signedIn":"the user"}\n');
  });
});
