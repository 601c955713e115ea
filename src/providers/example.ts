import { join } from 'node:path';
import type { SubagentProvider } from '../contract/types.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { type CommandPresetOptions, commandProvider, passThrough } from './command.js';

/** The example agent's script, in the `examples/` folder the package ships. */
export const EXAMPLE_AGENT_SCRIPT = join(PACKAGE_ROOT, 'examples', 'agents', 'checklist-agent.mjs');

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
