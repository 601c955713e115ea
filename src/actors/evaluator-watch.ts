import { changedFiles } from '../workspace/workspace-changes.js';
import { snapshotWorkspace, type WorkspaceSnapshot } from '../workspace/workspace-snapshot.js';
import type { WorkspaceWatch } from './evaluator-round.js';
import { ownOutputFiles } from './own-output.js';

/**
 * How an engine watches the workspace around an evaluator: a per-file snapshot before and after (in a git workspace
 * its HEAD and index too, so a commit or a reset is named), leaving out what ralph itself writes (its recording, its
 * redirected output), which is not the evaluator's doing.
 */
export const evaluatorWorkspaceWatch: WorkspaceWatch<WorkspaceSnapshot> = {
  snapshot: (cwd, signal) => snapshotWorkspace(cwd, { signal, ignore: ownOutputFiles() }),
  changed: changedFiles,
};
