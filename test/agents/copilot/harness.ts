import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { agentTurns, type ChatScript, type ChatServer, startChatServer } from '../support/chat-server.js';
import { onCleanup } from '../support/cleanups.js';
import { copilotHome, copilotPath } from '../support/copilot-env.js';
import type { UserHome } from '../support/user-home.js';

/** One test's world: the scripted model, a user's HOME and environment with Copilot wired to it, and a workspace. */
export interface CopilotWorld {
  server: ChatServer;
  home: UserHome;
  workspace: string;
  /** `ralph run <objective> --agent copilot --copilot-path <real copilot> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/** The report tool as Copilot names it to the model: `<server>-<tool>`. */
export const REPORT_TOOL = 'ralph_report-submit_report';

/** Starts the scripted model (its script may name the workspace), a workspace and a HOME; all removed after the test. */
export async function copilotWorld(script: (workspace: string) => ChatScript): Promise<CopilotWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-copilot-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const server = await startChatServer(agentTurns(script(workspace)));
  onCleanup(() => server.close());
  const home = await copilotHome(server.baseUrl);
  onCleanup(() => home.cleanup());
  const args = ['--agent', 'copilot', '--copilot-path', copilotPath, '--cwd', workspace];
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) => spawnRalph(['run', objective, ...args, ...extra], { env: home.env }),
  };
}
