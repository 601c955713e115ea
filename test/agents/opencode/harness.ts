import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { agentTurns, type ChatScript, type ChatServer, startChatServer } from '../support/chat-server.js';
import { onCleanup } from '../support/cleanups.js';
import { type OpencodeHome, opencodeHome, opencodePath } from '../support/opencode-env.js';

/** One test's world: the scripted model, a user's HOME with OpenCode wired to it, and a workspace. */
export interface OpencodeWorld {
  server: ChatServer;
  home: OpencodeHome;
  workspace: string;
  /** `ralph run <objective> --agent opencode --opencode-path <real opencode> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/** The report tool as OpenCode names it to the model: `<server>_<tool>`. */
export const REPORT_TOOL = 'ralph_report_submit_report';

/**
 * Starts the scripted model (its script, which may name the workspace, plays the agent's turns; side requests are
 * answered apart), a workspace and a HOME; all removed after the test.
 */
export async function opencodeWorld(script: (workspace: string) => ChatScript): Promise<OpencodeWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-opencode-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const server = await startChatServer(agentTurns(script(workspace)));
  onCleanup(() => server.close());
  const home = await opencodeHome(server.baseUrl);
  onCleanup(() => home.cleanup());
  const args = ['--agent', 'opencode', '--opencode-path', opencodePath, '--cwd', workspace];
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) => spawnRalph(['run', objective, ...args, ...extra], { env: home.env }),
  };
}

/** The requests that were the agent's turns (they offer tools). */
export const agentCalls = (server: ChatServer) =>
  server.calls.filter((body) => (body.tools ?? []).length > 0);
