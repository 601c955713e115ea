import { type ResolverVerdict, resolverObjective, resolverVerdict } from '../actors/resolver-steps.js';
import { isRalphError } from '../contract/errors.js';
import type { RalphSandbox } from '../contract/sandbox.js';
import { createProviderRegistry } from '../providers/registry.js';
import { createRalphTool } from '../run/tool.js';
import { git } from '../workspace/git-command.js';
import { finishMerge, startMergeOf } from '../workspace/git-merge.js';
import type { FleetBatchTask } from './batch-input.js';
import { type FleetProviderFactory, type FleetRunInput, guardRailsOf } from './run-input.js';

/** What a landing hands a conflict to a resolver loop with: the task's run's agent, guard rails and caps. */
export type FleetResolver = Pick<FleetRunInput, 'agent' | 'guardRails' | 'maxRounds' | 'terminationGraceMs'>;

/** How a resolver loop went: the merge commit to verify and land, or why the task still needs review. */
export type FleetResolveOutcome = ResolverVerdict;

/**
 * `ralph submit --batch --resolve-conflicts`, inside a landing's step on the landing worker: in the scratch worktree,
 * merges the task's branch (`head`) into the target's head (`onto`) and hands the conflicts to a Ralph loop of fresh
 * agents (the task's agent as this worker's factory makes it, the task's guard rails and round cap). A loop that
 * completes with no conflict marker left gives the merge commit, which the landing verifies before it pushes;
 * anything else leaves the task needing review. A landing done again after a crash starts a fresh loop. With `sandbox`
 * its agents (and its verify command) run in it, as the task's rounds did.
 */
export async function resolveOnFleet(
  { scratch, onto, head }: { scratch: string; onto: string; head: string },
  task: FleetBatchTask,
  resolver: FleetResolver,
  providerFor: FleetProviderFactory,
  signal: AbortSignal,
  sandbox?: RalphSandbox,
): Promise<FleetResolveOutcome> {
  await git(scratch, ['checkout', '--quiet', '--detach', onto]);
  const files = await startMergeOf(scratch, head);
  const message = (how: string) =>
    `ralph batch ${task.batchId}: task ${task.taskId} onto ${task.target}, ${how}`;
  if (files.length === 0)
    return { kind: 'resolved', head: await finishMerge(scratch, message('merged cleanly')) };
  try {
    const provider = providerFor(resolver.agent);
    const providers = createProviderRegistry();
    providers.register(provider);
    const grace = resolver.terminationGraceMs;
    const tool = createRalphTool(
      // Unchecked, as a fleet run passes them: the config's own check judges them.
      {
        subagentProvider: provider.name,
        ...(grace === undefined ? {} : { terminationGraceMs: grace as number }),
        ...guardRailsOf(resolver),
        ...(sandbox === undefined ? {} : { sandbox }),
      },
      { providers },
    );
    const envelope = await tool.execute(
      {
        objective: resolverObjective(task.target, task.taskId, files),
        ...(resolver.maxRounds === undefined ? {} : { maxRounds: resolver.maxRounds }),
      },
      { agent: { id: `fleet:${task.batchId}.${task.taskId}:resolve`, cwd: scratch }, signal },
    );
    return await resolverVerdict(scratch, files, envelope, message);
  } catch (error) {
    if (!isRalphError(error)) throw error;
    return { kind: 'unresolved', note: `${error.code}: ${error.message}` };
  }
}
