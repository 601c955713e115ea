import type { RalphEnvelope } from '../../../src/contract/types.js';
import {
  createProviderRegistry,
  createRalphTool,
  type RalphReport,
  type SubagentProvider,
} from '../../../src/index.js';

/** The report a read-only round's model gives after checking `file`: complete, nothing changed. */
export const checkedReport = (file: string): RalphReport => ({
  status: 'complete',
  summary: `READ-ONLY: ${file} checked, nothing changed`,
  evidence: [`${file} holds "original"`],
  nextSteps: [],
  blocker: null,
});

/** Runs one round of `provider` (a preset built with `readOnly: true`) in `workspace` through the ralph tool. */
export function readOnlyRound(provider: SubagentProvider, workspace: string): Promise<RalphEnvelope> {
  const providers = createProviderRegistry();
  providers.register(provider);
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  return tool.execute(
    { objective: 'Check the workspace', maxRounds: 1 },
    { agent: { id: 'parent', cwd: workspace } },
  );
}
