import { fromPromise } from 'xstate';
import { errorText } from '../contract/error-text.js';
import type { RalphSandbox } from '../contract/sandbox.js';
import type { ChildRequest, ChildRun, SubagentProvider } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import { usageOf } from '../contract/usage.js';
import type { ChildStartedEvent, RoundOutcome, RoundRef } from '../machines/ralph.machine.js';
import { stoppablePromise } from './stoppable-promise.js';

/** One round's child as the bridge tracks it, outside the machine's serializable context. */
interface RoundChild {
  controller: AbortController;
  started: Promise<ChildRun>;
}

/** What the round actors need of one run: its provider, its grace and the table of its children by round. */
export interface RunChildren {
  provider: SubagentProvider | undefined;
  terminationGraceMs: number;
  children: Map<number, RoundChild>;
  /** The run's sandbox, handed to every child's start; absent: none. */
  sandbox?: RalphSandbox;
}

/** A fresh, empty table of one run's children. */
export function runChildren(
  provider: SubagentProvider | undefined,
  terminationGraceMs: number,
  sandbox?: RalphSandbox,
): RunChildren {
  return { provider, terminationGraceMs, children: new Map(), ...(sandbox === undefined ? {} : { sandbox }) };
}

/**
 * A round's child failure that carries what its agent said the round used (`usage`), so the machine counts it though
 * no report came; its name and message are the failure's own, so the run's failure reads the same.
 */
export class SpentRoundFailure extends Error {
  constructor(
    failure: unknown,
    readonly usage: RalphUsage,
  ) {
    super(errorText(failure), { cause: failure });
    this.name = failure instanceof Error ? failure.name : 'Error';
  }
}

/** What a child said it used: read, not trusted (a provider of the host's own may hand back anything, or throw). */
export function usageSaid(run: ChildRun): RalphUsage | null {
  try {
    return usageOf(run.usage?.());
  } catch {
    return null;
  }
}

/** Throws unless a provider's start returned a child run. */
export function assertChildRun(value: unknown): asserts value is ChildRun {
  const run = value as Partial<ChildRun> | null;
  if (typeof run !== 'object' || run === null || typeof run.id !== 'string' || run.report === undefined) {
    throw new Error('provider.start did not return a child run ({ id, report })');
  }
}

/**
 * Aborts one round's child (a worker or an evaluator) and settles once it settled, whatever it settled with: a
 * stopped child is expected to fail, or never to have started. Its entry leaves the table either way.
 */
export async function stopAndSettle<C extends { controller: AbortController }>(
  children: Map<number, C> | undefined,
  round: number,
  settled: (child: C) => Promise<unknown>,
): Promise<void> {
  const child = children?.get(round);
  if (children === undefined || child === undefined) return;
  child.controller.abort(new Error('Ralph run cancelled'));
  try {
    await settled(child);
  } catch {
    // All that matters here is that it settled.
  } finally {
    children.delete(round);
  }
}

/** A round's started child, its run's table of children, and the signal that says the round was stopped. */
interface StartedRound {
  child: ChildRun;
  children: Map<number, RoundChild>;
  stopped: AbortSignal;
}

/** Starts a round's child through the run's provider, entered in the run's table; rejects on a provider-start failure. */
async function startRoundChild(run: RunChildren | undefined, input: ChildRequest): Promise<StartedRound> {
  if (run?.provider === undefined) throw new Error('no subagent provider is registered for this run');
  const { provider, terminationGraceMs, sandbox, children } = run;
  const controller = new AbortController();
  const started = Promise.resolve().then(() =>
    provider.start(input, {
      signal: controller.signal,
      terminationGraceMs,
      ...(sandbox === undefined ? {} : { sandbox }),
    }),
  );
  children.set(input.round, { controller, started });
  // The child's signal is aborted exactly when this round was stopped (the round left before this settled).
  const stopped = controller.signal;
  try {
    const child = await started;
    assertChildRun(child);
    return { child, children, stopped };
  } catch (error) {
    // A provider-start failure: no child runs, so none is left for a stop to wait on.
    if (!stopped.aborted) children.delete(input.round);
    throw error;
  }
}

/** Waits for a started child's report: its raw output and usage, or its limit; rejects on a child failure. */
async function awaitRoundReport(
  child: ChildRun,
  children: Map<number, RoundChild>,
  round: number,
  stopped: AbortSignal,
): Promise<RoundOutcome> {
  try {
    let output: unknown;
    try {
      output = await child.report;
    } catch (error) {
      if (stopped.aborted) throw error;
      const usage = usageSaid(child);
      // A usage limit is data for the machine to decide on (fail, or wait for the reset), not a fault; by its
      // name, so that a copy of the package's error class is recognised too.
      const limit = error as { name?: unknown; message?: unknown; retryInMs?: unknown } | null;
      if (limit?.name !== 'UsageLimitError')
        throw usage === null ? error : new SpentRoundFailure(error, usage);
      const retryInMs = typeof limit.retryInMs === 'number' ? limit.retryInMs : null;
      return { output: undefined, usage, limit: { detail: String(limit.message), retryInMs } };
    }
    return { output, usage: usageSaid(child) };
  } finally {
    if (!stopped.aborted) children.delete(round);
  }
}

/** The table lives in this process only: a run restored from a snapshot has no child to wait on (nor starts one). */
const noChildAfterRestore = (input: RoundRef) =>
  new Error(
    `round ${input.round} has no child in this process: a run restored from a snapshot taken in the middle ` +
      'of a round does not re-attach its child (resume the run at a round boundary instead: the resume option of the engine, or ralph resume)',
  );

/**
 * The two actors the machine invokes for a round, for every run of one engine: each finds its run's provider and
 * children by the runId of its input. One set per engine, so that the machine is provided once and not copied per run
 * (a provided machine copies every state node: most of a suspended run's heap when each run had its own).
 * `runRound` is a round's one actor: it starts the child, tells the run `CHILD_STARTED`, and waits for the report, on
 * the child's AbortController: leaving the round before it settled aborts it (stoppable-promise.ts), with no
 * controller of the actor's own to link to it.
 */
export function createRoundActors(runOf: (runId: string) => RunChildren | undefined) {
  /** Stopping the round's actor before it settled aborts the round's child. */
  const abortChild = (ref: RoundRef) => runOf(ref.runId)?.children.get(ref.round)?.controller.abort();

  // Not one async function: a suspended run holds only what waiting for the report needs (awaitRoundReport's frame),
  // not the start's provider, controller and request too (BENCHMARKS.md, issue 35: heap per suspended run).
  const runRound = stoppablePromise<RoundOutcome, ChildRequest, RoundRef>(
    (input, tell) =>
      startRoundChild(runOf(input.runId), input).then(({ child, children, stopped }) => {
        const childStarted: ChildStartedEvent = { type: 'CHILD_STARTED', childId: child.id };
        tell(childStarted);
        return awaitRoundReport(child, children, input.round, stopped);
      }),
    abortChild,
    noChildAfterRestore,
    (request) => ({ runId: request.runId, round: request.round }),
  );

  const awaitChildStopped = fromPromise<void, RoundRef>(({ input }) =>
    stopAndSettle(runOf(input.runId)?.children, input.round, async (child) => (await child.started).report),
  );

  return { runRound, awaitChildStopped };
}

/**
 * The bridge between a SubagentProvider and the run machine for a host that runs the machine itself: the round's
 * actors, sharing one table of the run's children so that the report promise and the abort controller never enter
 * the context. Each child gets its own AbortController, aborted when the invoking state is left before the child
 * settled. Provide a fresh set per run (the engine shares one set among its runs instead). A sandboxed run's input
 * says its `sandbox`, which the checks read; pass the same here, or its children would start outside it.
 */
export function createChildRoundActors(
  provider: SubagentProvider | undefined,
  terminationGraceMs: number,
  sandbox?: RalphSandbox,
) {
  const run = runChildren(provider, terminationGraceMs, sandbox);
  return createRoundActors(() => run);
}
