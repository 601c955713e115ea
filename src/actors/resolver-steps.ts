import type { RalphEnvelope } from '../contract/types.js';
import { filesWithMarkers, finishMerge } from '../workspace/git-merge.js';

/**
 * The objective of a resolver loop (`--resolve-conflicts`, locally and on the fleet): fixed text naming the target,
 * the task and the files in conflict.
 */
export function resolverObjective(target: string, taskId: string, files: readonly string[]): string {
  return [
    `This worktree holds an unfinished git merge of task ${taskId}'s branch into ${target}.`,
    `Resolve the merge conflicts in ${files.join(', ')}, keeping both sides' intent: what ${target} already has and what the task added.`,
    'Leave no conflict markers; do not commit and do not abort the merge: ralph commits the merge when your report says complete.',
  ].join('\n');
}

/** How a resolver loop went: the merge commit it made, or why the conflict is still there. */
export type ResolverVerdict = { kind: 'resolved'; head: string } | { kind: 'unresolved'; note: string };

/**
 * Judges a resolver loop that ended (locally and on the fleet): one that completed with no conflict marker left in
 * `files` gets the merge in `scratch` committed with `message`; anything else leaves the conflict unresolved.
 */
export async function resolverVerdict(
  scratch: string,
  files: readonly string[],
  envelope: RalphEnvelope,
  message: (how: string) => string,
): Promise<ResolverVerdict> {
  const { status, report } = envelope.result;
  if (status !== 'complete')
    return { kind: 'unresolved', note: `${status}: ${report.blocker ?? report.summary}` };
  const marked = await filesWithMarkers(scratch, files);
  if (marked.length > 0)
    return { kind: 'unresolved', note: `conflict markers are left in ${marked.join(', ')}` };
  return {
    kind: 'resolved',
    head: await finishMerge(scratch, message(`conflicts resolved (run ${envelope.runId})`)),
  };
}
