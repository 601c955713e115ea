import { fingerprintWorkspace } from '../workspace/workspace-fingerprint.js';
import type { WorkspaceWatch } from './evaluator-round.js';
import { ownOutputFiles } from './own-output.js';

/**
 * How an engine watches the workspace around an evaluator: a content snapshot before and after, leaving out what
 * ralph itself writes (its recording, its redirected output), which is not the evaluator's doing.
 */
export const evaluatorWorkspaceWatch: WorkspaceWatch<string> = {
  snapshot: (cwd, signal) => fingerprintWorkspace(cwd, { signal, ignore: ownOutputFiles() }),
  changed: (before, after) => (before === after ? [] : ['the workspace (changed)']),
};
