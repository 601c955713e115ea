import { fileURLToPath } from 'node:url';
import type { SubagentProvider } from '../contract/types.js';
import { type CommandPresetOptions, commandProvider, passThrough } from './command.js';

/**
 * The example agent's script. Resolved from this module's own URL, so it is found the same way from `src/` in the
 * repository and from `dist/` in an installed package (both sit one level below the package root, beside
 * `examples/`, which the package ships).
 */
export const EXAMPLE_AGENT_SCRIPT = fileURLToPath(
  new URL('../../examples/agents/checklist-agent.mjs', import.meta.url),
);

/**
 * The example agent as a provider: a deterministic checklist worker with no model, run with this Node binary, that
 * does the first unchecked task in the workspace's TASKS.md each round. For demos, docs and offline tests.
 */
export function exampleAgentProvider(
  options: Omit<CommandPresetOptions, 'path' | 'extraArgs'> = {},
): SubagentProvider {
  return commandProvider({
    name: 'example',
    command: [process.execPath, EXAMPLE_AGENT_SCRIPT],
    ...passThrough(options),
  });
}
