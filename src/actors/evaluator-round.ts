import { fromPromise } from 'xstate';
import type { RalphSandbox } from '../contract/sandbox.js';
import type { ChildRequest, ChildRun, SubagentProvider } from '../contract/types.js';
import type { ChildStarted, EvaluationOutcome, RoundRef } from '../machines/ralph.machine.js';
import { assertChildRun, SpentRoundFailure, stopAndSettle, usageSaid } from './child-round.js';
import { stoppablePromise } from './stoppable-promise.js';

/** How the evaluator actors see the workspace: a snapshot before the evaluator and after, and what differs. */
export interface WorkspaceWatch<S = unknown> {
  /** A snapshot of the workspace's files; rejects when the signal is aborted. */
  snapshot(cwd: string, signal: AbortSignal): Promise<S>;
  /** What differs between two snapshots, worded (`a.ts (changed)`); [] when nothing does. */
  changed(before: S, after: S): string[];
}

/** One evaluation's child as the bridge tracks it: its controller, its start (with the snapshot before it), its folder. */
interface EvaluatorChild {
  controller: AbortController;
  cwd: string;
  started: Promise<{ run: ChildRun; before: unknown }>;
}

/** What the evaluator actors need of one run: its evaluator provider, its grace and its evaluations by round. */
export interface RunEvaluators {
  provider: SubagentProvider | undefined;
  terminationGraceMs: number;
  children: Map<number, EvaluatorChild>;
  /** The run's sandbox, handed to every evaluator's start; absent: none. */
  sandbox?: RalphSandbox;
}

/** A fresh, empty table of one run's evaluations. */
export function runEvaluators(
  provider: SubagentProvider | undefined,
  terminationGraceMs: number,
  sandbox?: RalphSandbox,
): RunEvaluators {
  return { provider, terminationGraceMs, children: new Map(), ...(sandbox === undefined ? {} : { sandbox }) };
}

/**
 * The three evaluator actors the machine invokes, for every run of one engine, found by run id like the round
 * actors. `startEvaluator` takes the workspace's snapshot and then starts the evaluator; `awaitVerdict` waits for
 * its output and snapshots the workspace again, so the machine can fail an evaluator that changed anything, naming
 * the files. Both share the evaluation's one AbortController: leaving either state before it settled aborts it.
 */
export function createEvaluatorActors(
  runOf: (runId: string) => RunEvaluators | undefined,
  watch: WorkspaceWatch,
) {
  const abortEvaluator = (ref: RoundRef) => runOf(ref.runId)?.children.get(ref.round)?.controller.abort();

  const startEvaluator = stoppablePromise<ChildStarted, ChildRequest>(async (input) => {
    const evaluators = runOf(input.runId);
    if (evaluators?.provider === undefined)
      throw new Error('no evaluator provider is registered for this run');
    const { provider, terminationGraceMs, sandbox } = evaluators;
    const controller = new AbortController();
    const { signal } = controller;
    const started = (async () => {
      const before = await watch.snapshot(input.cwd, signal);
      const run = await provider.start(input, {
        signal,
        terminationGraceMs,
        ...(sandbox === undefined ? {} : { sandbox }),
      });
      assertChildRun(run);
      return { run, before };
    })();
    evaluators.children.set(input.round, { controller, cwd: input.cwd, started });
    const { run } = await started;
    return { childId: run.id };
  }, abortEvaluator);

  const awaitVerdict = stoppablePromise<EvaluationOutcome, RoundRef>(async (input) => {
    const children = runOf(input.runId)?.children;
    const child = children?.get(input.round);
    if (children === undefined || child === undefined)
      throw new Error(`the evaluation of round ${input.round} has no evaluator in this process`);
    const stopped = child.controller.signal;
    try {
      const { run, before } = await child.started;
      let output: unknown;
      try {
        output = await run.report;
      } catch (error) {
        if (stopped.aborted) throw error;
        // A usage limit is no verdict either: the evaluation failed (what it said it spent still counts).
        const usage = usageSaid(run);
        throw usage === null ? error : new SpentRoundFailure(error, usage);
      }
      const after = await watch.snapshot(child.cwd, stopped);
      return { output, usage: usageSaid(run), changedFiles: watch.changed(before, after) };
    } finally {
      if (!stopped.aborted) children.delete(input.round);
    }
  }, abortEvaluator);

  const awaitEvaluatorStopped = fromPromise<void, RoundRef>(({ input }) =>
    stopAndSettle(
      runOf(input.runId)?.children,
      input.round,
      async (child) => (await child.started).run.report,
    ),
  );

  return { startEvaluator, awaitVerdict, awaitEvaluatorStopped };
}
