/**
 * The command line's own texts: argument problems the tool never sees. Every rule of the tool itself answers with
 * the reference's messages from `contract/messages.ts`.
 */

/** Refusal: `ralph run` / `ralph mcp` was given no agent to start. */
export const AGENT_MISSING =
  "ralph needs an agent for its rounds: pass --agent claude|codex|example or --agent-command '<cmd and args>'";

/** Refusal: both ways of naming an agent were given. */
export const AGENT_CONFLICT = 'ralph takes either --agent or --agent-command, not both';

/** Refusal: the file `ralph run --record` names cannot be created. */
export function recordFileUnwritable(path: string, reason: string): string {
  return `ralph run --record ${path}: cannot create the recording (${reason}); nothing was started`;
}

/** Refusal: the recording `ralph replay` names cannot be read. */
export function replayFileUnreadable(path: string, reason: string): string {
  return `ralph replay ${path}: cannot read the recording (${reason})`;
}

/** Refusal: the recording cannot be replayed; `problem` names the line. */
export function replayRefused(path: string, problem: string): string {
  return `ralph replay ${path}: ${problem}`;
}

/** Refusal: the workspace folder does not exist or is not a folder. */
export function workspaceNotADirectory(path: string): string {
  return `ralph --cwd ${path} is not a directory`;
}

/** Said on stderr when the first Ctrl-C (or SIGTERM) cancels the run. */
export const CANCELLING = 'cancelling: waiting for the child agent to stop (press Ctrl-C again to force)';

/** Said on stderr when a second Ctrl-C forces the exit. */
export const FORCED = 'forced: killing the child agent and exiting';
