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
