import { type Command, Option } from 'commander';
import { AGENT_PRESETS } from '../../run/agent-options.js';

export {
  AGENT_PRESETS,
  type AgentOptions,
  isProgramPreset,
  PRESET_PROGRAMS,
  type PresetPathOption,
  type ProgramPreset,
} from '../../run/agent-options.js';

/** Adds the agent options to a command. Values stay strings: the tool's own checks judge them. */
export function addAgentOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--agent <name>',
        'a preset agent for the rounds: claude, codex, qwen, gemini, opencode, copilot, droid, or the offline example',
      ).choices(AGENT_PRESETS),
    )
    .option(
      '--agent-command <cmd>',
      'any agent command following the command agent protocol (split into argv, never run by a shell)',
    )
    .option(
      '--agent-reports-cost',
      'the --agent-command agent writes its costUsd to RALPH_USAGE_FILE every round, so --max-cost can hold',
    )
    .option('--claude-path <path>', 'the claude executable for --agent claude (default: claude on PATH)')
    .option('--codex-path <path>', 'the codex executable for --agent codex (default: codex on PATH)')
    .option('--qwen-path <path>', 'the qwen executable for --agent qwen (default: qwen on PATH)')
    .option('--gemini-path <path>', 'the gemini executable for --agent gemini (default: gemini on PATH)')
    .option(
      '--opencode-path <path>',
      'the opencode executable for --agent opencode (default: opencode on PATH)',
    )
    .option('--copilot-path <path>', 'the copilot executable for --agent copilot (default: copilot on PATH)')
    .option('--droid-path <path>', 'the droid executable for --agent droid (default: droid on PATH)')
    .option('--cwd <dir>', 'the workspace every round works in (default: the current directory)')
    .option(
      '--grace-ms <ms>',
      'how long a cancelled child may take to stop before it is killed (default 5000)',
    );
}
