import { fromPromise } from 'xstate';
import {
  bringOntoTarget,
  landOnTarget,
  type MergeSetup,
  verifyCombinedOwned,
} from '../actors/merge-steps.js';
import type {
  BringOutcome,
  CombinedVerify,
  ConflictItem,
  MergeItem,
  ResolveOutcome,
} from '../machines/batch-types.js';
import { mergeQueueMachine } from '../machines/merge-queue.machine.js';
import { pauseAfterLandForTests } from '../process/pause-after-land.js';
import type { LandingLog } from './landings.js';
import { type StepOutcome, verifySpanOutcome } from './tracing.js';

/** Runs one merge step, in a span of its own when the batch is traced. */
export type MergeStep = <T>(
  name: string,
  taskId: string,
  body: () => Promise<T>,
  outcome?: (result: T) => StepOutcome,
) => Promise<T>;

/** What a local batch's merge queue may add to its steps: their spans, and a resolver of conflicts. */
export interface MergeQueueHooks {
  step?: MergeStep;
  resolveConflicts?(input: ConflictItem, signal: AbortSignal): Promise<ResolveOutcome>;
  /** Where a verified task lands in place of the target (`--land pr`: its own branch, for its pull request). */
  land?(merge: MergeSetup, input: MergeItem & { head: string; onto: string }): Promise<void>;
}

const untraced: MergeStep = (_name, _taskId, body) => body();

/**
 * The merge queue of a local batch (`ralph batch`, and `ralph batch --land`): its steps in the repository's scratch
 * worktree, each landing tracked in `landings` so that a cancel cut short in the machine is still seen on the target.
 */
export function localMergeQueue(merge: MergeSetup, landings: LandingLog, hooks: MergeQueueHooks = {}) {
  const step = hooks.step ?? untraced;
  const resolver = hooks.resolveConflicts;
  const land = hooks.land ?? landOnTarget;
  return mergeQueueMachine.provide({
    actors: {
      bringOntoTarget: fromPromise<BringOutcome, MergeItem>(({ input }) =>
        step('rebase', input.taskId, () => bringOntoTarget(merge, input)),
      ),
      ...(resolver === undefined
        ? {}
        : {
            resolveConflicts: fromPromise<ResolveOutcome, ConflictItem>(({ input, signal }) =>
              step('resolve', input.taskId, () => resolver(input, signal)),
            ),
          }),
      verifyCombined: fromPromise<CombinedVerify, MergeItem>(({ input, signal }) =>
        step('verify', input.taskId, () => verifyCombinedOwned(merge, input, signal), verifySpanOutcome),
      ),
      landOnTarget: fromPromise<void, MergeItem & { head: string; onto: string }>(async ({ input }) => {
        const landing = step('land', input.taskId, () => land(merge, input));
        landings.track(input.taskId, input.head, landing);
        await landing;
        await pauseAfterLandForTests(input.taskId);
      }),
    },
  });
}
