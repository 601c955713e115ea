import { quote } from 'shell-quote';
import { DEFAULT_MAX_ROUNDS } from '../../contract/call.js';

export {
  AGENT_CONFLICT,
  AGENT_MISSING,
  agentUnavailable,
  evaluatorUnavailable,
  workspaceNotADirectory,
} from '../../run/agent-texts.js';

/**
 * The command line's own texts: argument problems the tool never sees. Every rule of the tool itself answers with
 * the reference's messages from `contract/messages.ts`.
 */

/** Help of `--trust-tasks` (`ralph batch`, `ralph submit --batch`). */
export const TRUST_TASKS_HELP =
  "run the agent and verify commands the tasks file names, and its tasks' agents over the command line's (shown when refused without it)";

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

/** Said on stderr once `ralph mcp` serves: what it is doing, and how a client registers it (`args`: its argv). */
export function mcpServing(args: readonly string[]): string {
  return `ralph: serving the ralph tool over MCP on stdio; register it in your client: claude mcp add ralph -- npx ralph ${quote([...args])} (Ctrl-C stops it)`;
}

/** The line after commander's "too many arguments" for `ralph run`: an objective of several words was not quoted. */
export function quoteObjectiveHint(words: readonly string[]): string {
  return `ralph: the objective is one argument; quote it: ralph run ${JSON.stringify(words.join(' '))} …`;
}

/** True when only the ceiling bounds a run of a paid agent: no cap given, and not the offline example agent. */
const onlyTheCeiling = (run: { agent?: unknown; maxRounds?: unknown } | undefined): boolean =>
  run !== undefined && run.maxRounds === undefined && run.agent !== 'example';

/**
 * Said once before round 1 when a run of a paid agent (claude, codex, an --agent-command) was given no
 * --max-rounds, so that only the ceiling bounds what it spends; undefined otherwise (the offline example agent,
 * a cap given). `run` is `ralph run`'s options, or what a recording kept of them.
 */
export function roundCapNote(run: { agent?: unknown; maxRounds?: unknown } | undefined): string | undefined {
  if (!onlyTheCeiling(run)) return undefined;
  return `no --max-rounds given: up to ${DEFAULT_MAX_ROUNDS} rounds (the ceiling); pass --max-rounds N to cap a paid agent`;
}

/**
 * Said once when a batch starts (not once a task) when some task's loop, of a paid agent, has neither --max-rounds
 * nor its own maxRounds; undefined otherwise. `loops` is each task's agent and cap, the batch's options filled in.
 */
export function batchRoundCapNote(
  loops: readonly { agent?: unknown; maxRounds?: unknown }[],
): string | undefined {
  if (!loops.some(onlyTheCeiling)) return undefined;
  return `no --max-rounds given: up to ${DEFAULT_MAX_ROUNDS} rounds (the ceiling) for each task without its own maxRounds; pass --max-rounds N to cap a paid agent`;
}

/** Said on stderr when the first Ctrl-C (or SIGTERM) cancels the run. */
export const CANCELLING = 'cancelling: waiting for the child agent to stop (press Ctrl-C again to force)';

/** Said on stderr when a second Ctrl-C forces the exit. */
export const FORCED = 'forced: killing the child agent and exiting';
