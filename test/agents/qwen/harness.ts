import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { type ChatScript, type ChatServer, startChatServer } from '../support/chat-server.js';
import { onCleanup } from '../support/cleanups.js';
import { qwenHome, qwenPath } from '../support/qwen-env.js';
import type { UserHome } from '../support/user-home.js';

/** One test's world: the scripted model, a user's HOME with Qwen Code wired to it, and a workspace. */
export interface QwenWorld {
  server: ChatServer;
  home: UserHome;
  workspace: string;
  /** `ralph run <objective> --agent qwen --qwen-path <real qwen> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/** Starts the scripted model (its script may name the workspace), a workspace and a HOME; all removed after the test. */
export async function qwenWorld(script: (workspace: string) => ChatScript): Promise<QwenWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-qwen-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const server = await startChatServer(script(workspace));
  onCleanup(() => server.close());
  const home = await qwenHome(server.baseUrl);
  onCleanup(() => home.cleanup());
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) =>
      spawnRalph(
        ['run', objective, '--agent', 'qwen', '--qwen-path', qwenPath, '--cwd', workspace, ...extra],
        {
          env: home.env,
        },
      ),
  };
}
