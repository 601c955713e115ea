import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import {
  agentTurns,
  type ChatScript,
  type ChatServer,
  call,
  startChatServer,
} from '../support/chat-server.js';
import { onCleanup } from '../support/cleanups.js';
import { droidHome, droidPath } from '../support/droid-env.js';
import type { UserHome } from '../support/user-home.js';

/** One test's world: the scripted model, a user's HOME with Droid wired to it, and a workspace. */
export interface DroidWorld {
  server: ChatServer;
  home: UserHome;
  workspace: string;
  /** `ralph run <objective> --agent droid --droid-path <real droid> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/** The report tool as Droid names it to the model: `<server>___<tool>`. */
export const REPORT_TOOL = 'ralph_report___submit_report';

/** Droid lists MCP tools as deferred: the model loads the report tool's schema with ToolSearch before calling it. */
export const LOAD_REPORT_TOOL = call('ToolSearch', { query: `select:${REPORT_TOOL}` });

/** Starts the scripted model (its script may name the workspace), a workspace and a HOME; all removed after the test. */
export async function droidWorld(script: (workspace: string) => ChatScript): Promise<DroidWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-droid-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const server = await startChatServer(agentTurns(script(workspace)));
  onCleanup(() => server.close());
  const home = await droidHome(server.baseUrl);
  onCleanup(() => home.cleanup());
  const args = ['--agent', 'droid', '--droid-path', droidPath, '--cwd', workspace];
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) => spawnRalph(['run', objective, ...args, ...extra], { env: home.env }),
  };
}
