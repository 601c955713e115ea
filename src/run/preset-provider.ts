import type { SubagentProvider } from '../contract/types.js';
import {
  claudeProvider,
  codexProvider,
  copilotProvider,
  droidProvider,
  exampleAgentProvider,
  geminiProvider,
  opencodeProvider,
  qwenProvider,
} from '../providers/presets.js';
import type { AgentOptions } from './agent-options.js';

/**
 * The provider of a preset agent. `readOnly` asks for the preset's read-only mode, for an evaluator (the flags each
 * uses: docs/agents-presets.md); the workspace check after the evaluator guards every preset whatever its mode.
 */
export function presetProvider(
  preset: NonNullable<AgentOptions['agent']>,
  options: AgentOptions,
  { readOnly = false }: { readOnly?: boolean } = {},
): SubagentProvider {
  // Only when asked, so that a round's preset is built exactly as it always was.
  const mode = readOnly ? { readOnly: true } : {};
  switch (preset) {
    case 'claude':
      return claudeProvider({
        ...mode,
        ...(options.claudePath === undefined ? {} : { path: options.claudePath }),
      });
    case 'codex':
      return codexProvider({
        ...mode,
        ...(options.codexPath === undefined ? {} : { path: options.codexPath }),
      });
    case 'qwen':
      return qwenProvider({ ...mode, ...(options.qwenPath === undefined ? {} : { path: options.qwenPath }) });
    case 'gemini':
      return geminiProvider({
        ...mode,
        ...(options.geminiPath === undefined ? {} : { path: options.geminiPath }),
      });
    case 'opencode':
      return opencodeProvider({
        ...mode,
        ...(options.opencodePath === undefined ? {} : { path: options.opencodePath }),
      });
    case 'copilot':
      return copilotProvider({
        ...mode,
        ...(options.copilotPath === undefined ? {} : { path: options.copilotPath }),
      });
    case 'droid':
      return droidProvider({
        ...mode,
        ...(options.droidPath === undefined ? {} : { path: options.droidPath }),
      });
    case 'example':
      return exampleAgentProvider(mode);
  }
}
