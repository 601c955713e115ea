import { removeFleetUrls } from '../../fleet/database-env.js';
import { createOptionsTool, type OptionsTool } from '../../run/options-tool.js';

export { assertAgentStartable, providerFor, workspaceFor } from '../../run/options-tool.js';

/** The tool a CLI command serves, the calling agent it answers for, and a way to kill its children outright. */
export type CliTool = OptionsTool;

/**
 * Builds what a CLI command hosts (options-tool.ts), once the fleet's database URLs are out of this process's
 * environment: a fleet's URL in the user's shell is no agent's business (with it, an agent could queue commands on
 * every worker).
 */
export function createCliTool(...args: Parameters<typeof createOptionsTool>): CliTool {
  removeFleetUrls();
  return createOptionsTool(...args);
}
