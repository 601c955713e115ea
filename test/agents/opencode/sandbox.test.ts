import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, inOrder, say } from '../support/chat-server.js';
import { OPENCODE_USER_KEY } from '../support/opencode-env.js';
import { completeReport } from '../support/round-reports.js';
import { expectSandboxedRound, SANDBOX_NOTE } from '../support/sandbox-round.js';
import { opencodeWorld, REPORT_TOOL } from './harness.js';

/** The model writes note.txt with opencode's write, reports complete, and ends its turn. */
const writeAndComplete = (workspace: string) =>
  inOrder(
    call('write', { filePath: join(workspace, 'note.txt'), content: SANDBOX_NOTE }),
    call(REPORT_TOOL, completeReport),
    say('Reported.'),
  );

describe('ralph run --agent opencode --sandbox: the real opencode inside ralph’s sandbox', () => {
  it('writes the workspace with opencode’s write and completes', async () => {
    const world = await opencodeWorld(writeAndComplete);
    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
  });

  it('finds the user’s config and key where their XDG_CONFIG_HOME and XDG_DATA_HOME say', async () => {
    const world = await opencodeWorld(writeAndComplete);
    // Both live elsewhere in the home, which the private home would not have: opencode would find no provider, and
    // the round's link to the user's auth.json would lead nowhere.
    const configHome = join(world.home.dir, 'xdg-config');
    const dataHome = join(world.home.dir, 'xdg-data');
    renameSync(world.home.configDir, configHome);
    renameSync(join(world.home.dir, '.local', 'share'), dataHome);
    Object.assign(world.home.env, { XDG_CONFIG_HOME: configHome, XDG_DATA_HOME: dataHome });

    const out = await world.ralphRun('Write note.txt', '--json', '--sandbox').finished;
    expectSandboxedRound(out, world.workspace, world.server.callerNamespaces);
    for (const said of world.server.authorizations) expect(said).toBe(`Bearer ${OPENCODE_USER_KEY}`);
  });
});
