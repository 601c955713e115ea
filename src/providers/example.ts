import { join } from 'node:path';
import type { SubagentProvider } from '../contract/types.js';
import { packageRoot } from '../package-root.js';
import { type CommandPresetOptions, commandProvider, passThrough } from './command.js';

/**
 * The path of the example agent's script, in the `examples/` folder the package ships. Found when called, not at
 * import; throws when the package's files are not there (the library bundled into another file).
 */
export function exampleAgentScript(): string {
  return join(packageRoot('the example agent'), 'examples', 'agents', 'checklist-agent.mjs');
}

/**
 * The example agent as a provider: a deterministic checklist worker with no model, run with this Node binary, that
 * does the first unchecked task in the workspace's TASKS.md each round. For demos, docs and offline tests. With
 * `readOnly` it runs with `--read-only`: it writes nothing in the workspace, and reports what is done and what is not.
 */
export function exampleAgentProvider(
  options: Omit<CommandPresetOptions, 'path' | 'extraArgs'> = {},
): SubagentProvider {
  return commandProvider({
    name: 'example',
    command: [process.execPath, exampleAgentScript(), ...(options.readOnly ? ['--read-only'] : [])],
    ...passThrough(options),
  });
}
