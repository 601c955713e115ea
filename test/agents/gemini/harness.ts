import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spawned, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { onCleanup } from '../support/cleanups.js';
import { geminiHome, geminiPath } from '../support/gemini-env.js';
import { type GeminiScript, type GeminiServer, startGeminiServer } from '../support/gemini-server.js';
import type { UserHome } from '../support/user-home.js';

/** One test's world: the scripted Gemini API, a user's HOME with Gemini CLI wired to it, and a workspace. */
export interface GeminiWorld {
  server: GeminiServer;
  home: UserHome;
  workspace: string;
  /** `ralph run <objective> --agent gemini --gemini-path <real gemini> --cwd <workspace> ...extra`. */
  ralphRun(objective: string, ...extra: string[]): Spawned;
}

/** The report tool as Gemini CLI names it to the model: `mcp_<server>_<tool>`. */
export const REPORT_TOOL = 'mcp_ralph_report_submit_report';

/** Starts the scripted model (its script may name the workspace), a workspace and a HOME; all removed after the test. */
export async function geminiWorld(script: (workspace: string) => GeminiScript): Promise<GeminiWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-gemini-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const server = await startGeminiServer(script(workspace));
  onCleanup(() => server.close());
  const home = await geminiHome(server.baseUrl);
  onCleanup(() => home.cleanup());
  const args = ['--agent', 'gemini', '--gemini-path', geminiPath, '--cwd', workspace];
  return {
    server,
    home,
    workspace,
    ralphRun: (objective, ...extra) => spawnRalph(['run', objective, ...args, ...extra], { env: home.env }),
  };
}
