import type { BatchTask } from '../contract/batch-tasks.js';
import { RalphError } from '../contract/errors.js';
import { AGENT_PRESETS, type AgentOptions } from '../run/agent-options.js';

/** The option by which the user vouches for a tasks file: its own agents and commands then run as it names them. */
export interface TasksTrustOptions {
  trustTasks?: boolean;
}

/** Where a tasks file is read: the command (`ralph batch`), the file, and what a refusal leaves undone. */
export interface TasksFileUse {
  command: string;
  file: string;
  /** The end of a refusal: `nothing was started`, `nothing was submitted`. */
  nothing: string;
}

/** Whether a task's `agent` is a preset: a program the user installed, run with the command line's executable. */
const isPreset = (agent: string): boolean => (AGENT_PRESETS as readonly string[]).includes(agent);

/**
 * The commands the tasks name of their own, one line each (`task "a" agent: "…"`), every value JSON-quoted: a shared
 * file may hide a command behind terminal escapes or line breaks; quoted, they show.
 */
export function taskCommands(tasks: readonly BatchTask[]): string[] {
  const lines: string[] = [];
  for (const task of tasks) {
    if (task.agent !== undefined && !isPreset(task.agent))
      lines.push(`task ${JSON.stringify(task.id)} agent: ${JSON.stringify(task.agent)}`);
    if (task.verify !== undefined)
      lines.push(`task ${JSON.stringify(task.id)} verify: ${JSON.stringify(task.verify)}`);
  }
  return lines;
}

/** Refusal: the tasks file names commands to run, and the user did not vouch for it. */
function commandsRefused(use: TasksFileUse, commands: readonly string[]): RalphError {
  return new RalphError({
    code: 'refused',
    message: `${use.command}: the tasks file ${use.file} names commands to run; ${use.nothing}`,
    detail: [
      'Its tasks would run:',
      ...commands.map((line) => `  ${line}`),
      'Pass --trust-tasks to run them (trust a tasks file as you would a script), or take them out of the file: ' +
        '--agent-command and --verify on the command line hold for every task.',
    ].join('\n'),
  });
}

/**
 * The tasks as the command line lets them run. A tasks file may come from a pull request or a shared repository:
 * without `--trust-tasks` an agent command or verify command it names is refused (every one listed, nothing
 * started), and a preset it names for a task is taken only when the command line names no agent; when it does, the
 * command line's agent wins and `say` names the tasks whose preset was set aside. With `--trust-tasks` the file's
 * agents and verify commands apply as written, over the command line's.
 */
export function tasksAsTrusted(
  tasks: BatchTask[],
  options: AgentOptions & TasksTrustOptions,
  use: TasksFileUse,
  say: (line: string) => void,
): BatchTask[] {
  if (options.trustTasks === true) return tasks;
  const commands = taskCommands(tasks);
  if (commands.length > 0) throw commandsRefused(use, commands);
  const given = options.agentCommand !== undefined ? '--agent-command' : options.agent;
  if (given === undefined) return tasks;
  const setAside = tasks.filter((task) => task.agent !== undefined);
  if (setAside.length === 0) return tasks;
  const named = setAside.map((task) => `task ${JSON.stringify(task.id)} (${task.agent})`).join(', ');
  const agent = given === '--agent-command' ? given : `--agent ${given}`;
  say(
    `${agent} on the command line wins over the agent the tasks file names for ${named} ` +
      '(--trust-tasks lets the file choose)',
  );
  return tasks.map(({ agent: _setAside, ...task }) => task);
}
