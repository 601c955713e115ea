import { quote } from 'shell-quote';
import { DEFAULT_MAX_ROUNDS } from '../../contract/call.js';
import type { ProgramProblem } from '../../process/program-check.js';
import { type AgentOptions, isProgramPreset, PRESET_PROGRAMS } from './agent-options.js';

/**
 * The command line's own texts: argument problems the tool never sees. Every rule of the tool itself answers with
 * the reference's messages from `contract/messages.ts`.
 */

/** Refusal: `ralph run` / `ralph mcp` was given no agent to start. */
export const AGENT_MISSING =
  "ralph needs an agent for its rounds: pass --agent claude|codex|example or --agent-command '<cmd and args>'";

/** Help of `--trust-tasks` (`ralph batch`, `ralph submit --batch`). */
export const TRUST_TASKS_HELP =
  "run the agent and verify commands the tasks file names, and its tasks' agents over the command line's (shown when refused without it)";

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

/** Refusal: the program of the agent the options name cannot be found or run; says which flag fixes it. */
export function agentUnavailable(options: AgentOptions, problem: ProgramProblem): string {
  const preset = isProgramPreset(options.agent) ? options.agent : undefined;
  if (preset !== undefined) {
    const flag = `--${preset}-path`;
    const { pathOption, install } = PRESET_PROGRAMS[preset];
    const given = options[pathOption];
    if (given === undefined)
      return problem.kind === 'not-executable'
        ? `ralph: the ${preset} program on PATH (${problem.path}) cannot be run: it is not executable; fix its permissions (chmod +x), or pass ${flag} <file>`
        : `ralph: the ${preset} program was not found on PATH; ${install}, put it on PATH, or pass ${flag} <file>`;
    return problem.kind === 'not-executable'
      ? `ralph: ${flag} ${given} cannot be run: ${problem.path} is not an executable file; chmod +x it, or pass ${flag} <the ${preset} program>`
      : `ralph: ${flag} ${given} was not found (${problem.path}); pass ${flag} <the ${preset} program>, or leave it out to use ${preset} on PATH`;
  }
  return commandUnavailable('--agent-command', problem);
}

/** Refusal: the program of the evaluator the options name cannot be found or run; says which flag fixes it. */
export function evaluatorUnavailable(
  options: AgentOptions & { evaluator?: string; evaluatorCommand?: string },
  problem: ProgramProblem,
): string {
  if (options.evaluatorCommand !== undefined) return commandUnavailable('--evaluator-command', problem);
  // A preset evaluator's program is found like the agent's, through the same --<preset>-path flag.
  const { agent: _agent, agentCommand: _command, ...rest } = options;
  return agentUnavailable(
    isProgramPreset(options.evaluator) ? { ...rest, agent: options.evaluator } : rest,
    problem,
  );
}

/** The refusal of a command's missing or unrunnable program, naming the flag that gave it. */
function commandUnavailable(
  flag: '--agent-command' | '--evaluator-command',
  problem: ProgramProblem,
): string {
  const shown = JSON.stringify(problem.program);
  if (problem.kind === 'not-executable')
    return `ralph: the ${flag} program ${shown} cannot be run: ${problem.path} is not executable; chmod +x it, or name its interpreter first (e.g. ${flag} 'node ${problem.program}')`;
  return problem.onPath
    ? `ralph: the ${flag} program ${shown} was not found on PATH; install it, put it on PATH, or give its path (e.g. ${flag} './${problem.program}')`
    : `ralph: the ${flag} program ${shown} was not found at ${problem.path}; fix its path in ${flag} (a relative one is taken from the workspace, --cwd)`;
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
