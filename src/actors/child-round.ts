import { fromPromise } from 'xstate';
import type { ChildRequest, ChildRun, SubagentProvider } from '../contract/types.js';
import type { ChildStarted, RoundRef } from '../machines/ralph.machine.js';

/** One round's child as the bridge tracks it, outside the machine's serializable context. */
interface RoundChild {
  controller: AbortController;
  started: Promise<ChildRun>;
}

function assertChildRun(value: unknown): asserts value is ChildRun {
  const run = value as Partial<ChildRun> | null;
  if (typeof run !== 'object' || run === null || typeof run.id !== 'string' || run.report === undefined) {
    throw new Error('provider.start did not return a child run ({ id, report })');
  }
}

/** Runs `body`, aborting `controller` if `signal` aborts first; the link is removed afterwards. */
async function linked<T>(
  signal: AbortSignal,
  controller: AbortController,
  body: () => Promise<T>,
): Promise<T> {
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  signal.addEventListener('abort', forward, { once: true });
  try {
    return await body();
  } finally {
    signal.removeEventListener('abort', forward);
  }
}

/**
 * The bridge between a SubagentProvider and the run machine: the three actors the machine invokes, sharing one
 * table of the run's children so that the report promise and the abort controller never enter the context.
 * Each child gets its own AbortController, aborted when the invoking state is left before the child settled.
 */
export function createChildRoundActors(provider: SubagentProvider | undefined, terminationGraceMs: number) {
  const children = new Map<number, RoundChild>();

  const startChild = fromPromise<ChildStarted, ChildRequest>(async ({ input, signal }) => {
    if (provider === undefined) throw new Error('no subagent provider is registered for this run');
    const controller = new AbortController();
    const started = Promise.resolve().then(() =>
      provider.start(input, { signal: controller.signal, terminationGraceMs }),
    );
    children.set(input.round, { controller, started });
    const run = await linked(signal, controller, () => started);
    assertChildRun(run);
    return { childId: run.id };
  });

  const awaitReport = fromPromise<unknown, RoundRef>(async ({ input, signal }) => {
    const child = children.get(input.round);
    if (child === undefined)
      // The table lives in this process only: a run restored from a snapshot has no child to wait on.
      throw new Error(
        `round ${input.round} has no child in this process: a run restored from a snapshot taken in the middle ` +
          'of a round does not re-attach its child (resuming a run is not supported yet)',
      );
    try {
      return await linked(signal, child.controller, async () => (await child.started).report);
    } finally {
      if (!signal.aborted) children.delete(input.round);
    }
  });

  const awaitChildStopped = fromPromise<void, RoundRef>(async ({ input }) => {
    const child = children.get(input.round);
    if (child === undefined) return;
    child.controller.abort(new Error('Ralph run cancelled'));
    try {
      await (await child.started).report;
    } catch {
      // A cancelled child is expected to fail; all that matters here is that it settled.
    } finally {
      children.delete(input.round);
    }
  });

  return { startChild, awaitReport, awaitChildStopped };
}
