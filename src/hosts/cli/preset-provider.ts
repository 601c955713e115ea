import type { SubagentProvider } from '../../contract/types.js';
import {
  claudeProvider,
  codexProvider,
  copilotProvider,
  droidProvider,
  exampleAgentProvider,
  geminiProvider,
  opencodeProvider,
  qwenProvider,
} from '../../providers/presets.js';
import type { AgentOptions } from './agent-options.js';

/**
 * The provider of a preset agent. `readOnly` asks for the preset's read-only mode, for an evaluator (presets
 * without one start as they always do: the workspace check alone guards them).
 */
export function presetProvider(
  preset: NonNullable<AgentOptions['agent']>,
  options: AgentOptions,
  { readOnly = false }: { readOnly?: boolean } = {},
): SubagentProvider {
  switch (preset) {
    case 'claude':
      return claudeProvider(options.claudePath === undefined ? {} : { path: options.claudePath });
    case 'codex':
      return codexProvider(options.codexPath === undefined ? {} : { path: options.codexPath });
    case 'qwen':
      return qwenProvider(options.qwenPath === undefined ? {} : { path: options.qwenPath });
    case 'gemini':
      return geminiProvider(options.geminiPath === undefined ? {} : { path: options.geminiPath });
    case 'opencode':
      return opencodeProvider(options.opencodePath === undefined ? {} : { path: options.opencodePath });
    case 'copilot':
      return copilotProvider(options.copilotPath === undefined ? {} : { path: options.copilotPath });
    case 'droid':
      return droidProvider(options.droidPath === undefined ? {} : { path: options.droidPath });
    case 'example':
      return exampleAgentProvider();
  }
}
