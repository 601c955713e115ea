import type { ProgramProblem } from '../process/program-check.js';
import { type AgentOptions, isProgramPreset, PRESET_PROGRAMS } from './agent-options.js';

/** Refusal: `ralph run` / `ralph mcp` was given no agent to start. */
export const AGENT_MISSING =
  "ralph needs an agent for its rounds: pass --agent claude|codex|example or --agent-command '<cmd and args>'";

/** Refusal: both ways of naming an agent were given. */
export const AGENT_CONFLICT = 'ralph takes either --agent or --agent-command, not both';

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
