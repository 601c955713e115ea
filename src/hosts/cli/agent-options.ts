import { type Command, Option } from 'commander';

/** The agent presets `--agent` accepts. */
export const AGENT_PRESETS = [
  'claude',
  'codex',
  'qwen',
  'gemini',
  'opencode',
  'copilot',
  'droid',
  'example',
] as const;

/** The presets that run a real agent program, each with the option naming its executable and how to install it. */
export const PRESET_PROGRAMS = {
  claude: { pathOption: 'claudePath', install: 'install Claude Code' },
  codex: { pathOption: 'codexPath', install: 'install the Codex CLI' },
  qwen: { pathOption: 'qwenPath', install: 'install Qwen Code (npm install -g @qwen-code/qwen-code)' },
  gemini: { pathOption: 'geminiPath', install: 'install Gemini CLI (npm install -g @google/gemini-cli)' },
  opencode: { pathOption: 'opencodePath', install: 'install OpenCode (npm install -g opencode-ai)' },
  copilot: {
    pathOption: 'copilotPath',
    install: 'install GitHub Copilot CLI (npm install -g @github/copilot)',
  },
  droid: { pathOption: 'droidPath', install: "install Factory's Droid CLI (npm install -g @factory/cli)" },
} as const;

/** A preset that runs a real agent program. */
export type ProgramPreset = keyof typeof PRESET_PROGRAMS;

/** The option naming a preset's executable (`claudePath`, …). */
export type PresetPathOption = (typeof PRESET_PROGRAMS)[ProgramPreset]['pathOption'];

/** Whether `name` is a preset that runs a real agent program. */
export const isProgramPreset = (name: string | undefined): name is ProgramPreset =>
  name !== undefined && Object.hasOwn(PRESET_PROGRAMS, name);

/** Which agent serves the rounds, where it works, and how long it gets to stop: shared by `run` and `mcp`. */
export interface AgentOptions {
  agent?: (typeof AGENT_PRESETS)[number];
  agentCommand?: string;
  agentReportsCost?: boolean;
  claudePath?: string;
  codexPath?: string;
  qwenPath?: string;
  geminiPath?: string;
  opencodePath?: string;
  copilotPath?: string;
  droidPath?: string;
  cwd?: string;
  graceMs?: string;
}

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
