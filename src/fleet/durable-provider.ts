import { errorText } from '../contract/error-text.js';
import type { ChildRun, SubagentProvider } from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf } from '../contract/usage.js';

/** What the durable provider needs of DBOS, inside a run's workflow. */
export interface DurableSteps {
  /** `DBOS.runStep`: runs `body` once and records its result; on a replay returns the recorded result at once. */
  runStep<T>(body: () => Promise<T>, name: string): Promise<T>;
  /** The running step's `DBOS.stepStatus.cancelSignal`: aborted about a second after the workflow is cancelled. */
  cancelSignal(): AbortSignal | undefined;
}

/**
 * One round as its step records it: the raw output and what the agent said it used (so a run taken over by another
 * worker counts what its earlier rounds cost), or how the round failed. A failure is recorded as data, not as a
 * thrown error, so a replay rejects with the very message the round failed with (a usage limit as one) and the
 * machine decides the same. A round stopped by a cancel records nothing: the step throws, and a resumed run starts
 * that round again. Steps recorded before usage was (`usage` absent) count as rounds that said nothing.
 */
export type RoundOutcome = (
  | { ok: true; output: unknown; usage?: RalphUsage | null }
  | {
      ok: false;
      phase: 'start' | 'report';
      message: string;
      /** Set when the round ended on a usage or rate limit: how long until it resets (ms; null: not said). */
      limit?: { retryInMs: number | null };
    }
) & {
  /**
   * Set when its child was started in the run's sandbox (absent otherwise, and in steps recorded before it was):
   * what `ralph status` and the dashboard say of the run, round by round, whichever worker ran each.
   */
  sandboxed?: true;
};

/** What a round's child said it used, read as the machine reads it (never trusted, never thrown). */
function usageRead(child: ChildRun): RalphUsage | null {
  try {
    return usageOf(child.usage?.());
  } catch {
    return null;
  }
}

/** The recorded failure of a round: a usage limit keeps its kind and its reset, so a replay decides the same. */
function failureOf(phase: 'start' | 'report', error: unknown): RoundOutcome {
  const limit = error as { name?: unknown; retryInMs?: unknown } | null;
  if (phase === 'report' && limit?.name === 'UsageLimitError') {
    const retryInMs = typeof limit.retryInMs === 'number' ? limit.retryInMs : null;
    return { ok: false, phase, message: errorText(error), limit: { retryInMs } };
  }
  return { ok: false, phase, message: errorText(error) };
}

/** The error a recorded failure rejects with: a usage limit as the machine recognises one (by its name). */
function errorOf(recorded: Extract<RoundOutcome, { ok: false }>): Error {
  const error = new Error(recorded.message);
  if (recorded.limit !== undefined) {
    error.name = 'UsageLimitError';
    Object.assign(error, { retryInMs: recorded.limit.retryInMs });
  }
  return error;
}

/** The step name of a round: replays check that the recorded step at each position has this name. */
export const roundStepName = (round: number): string => `round-${round}`;

/**
 * The step name of the evaluation of a round's reported completion (`ralph submit --evaluator`): a step of its own
 * beside the round's, so that it never counts as a round, and a run taken over while evaluating evaluates again.
 */
export const evaluationStepName = (round: number): string => `evaluate-${round}`;

/** Whether a recorded step is a round's. */
export const isRoundStep = (name: string): boolean => name.startsWith('round-');

/** Whether a recorded step is an evaluation's. */
export const isEvaluationStep = (name: string): boolean => name.startsWith('evaluate-');

/** How many of a run's recorded rounds started their child in a sandbox. */
export const sandboxedRounds = (steps: readonly { name: string; output: unknown }[]): number =>
  steps.filter((step) => isRoundStep(step.name) && (step.output as RoundOutcome | null)?.sandboxed === true)
    .length;

/**
 * What the recorded rounds and evaluations of a run said they used, summed as the run sums it (an evaluator's usage
 * counts toward its cost budget as a round's does); null while none said anything.
 */
export function recordedUsage(steps: readonly { name: string; output: unknown }[]): RalphUsage | null {
  let total: RalphUsage | null = null;
  for (const step of steps) {
    const outcome = step.output as RoundOutcome | null | undefined;
    const childStep = isRoundStep(step.name) || isEvaluationStep(step.name);
    if (childStep && outcome?.ok === true) total = addUsage(total, usageOf(outcome.usage));
  }
  return total;
}

/**
 * Wraps a provider so that each round is one DBOS step: start the real child and wait for its report, returning
 * the raw output. An evaluator's child (`request.role` 'evaluator') is a step the same way, named after the round it
 * judges (`evaluate-N`). When DBOS re-executes a recovered run, the rounds that completed return their recorded outputs
 * without starting anything, so the statechart walks the same decisions again, and only the interrupted round
 * starts a fresh child. A cancel of the workflow (seen by the step) aborts the real child and calls `onCancel`, so
 * the run cancels as `ralph run` does on Ctrl-C.
 */
export function durableProvider(
  real: SubagentProvider,
  steps: DurableSteps,
  { runId, onCancel }: { runId: string; onCancel(): void },
): SubagentProvider {
  return {
    name: real.name,
    capabilities: real.capabilities,
    async start(request, options): Promise<ChildRun> {
      const stepName =
        request.role === 'evaluator' ? evaluationStepName(request.round) : roundStepName(request.round);
      let markStarted: () => void = () => {};
      const started = new Promise<undefined>((resolve) => {
        markStarted = () => resolve(undefined);
      });
      // Recorded with the round: the sandbox is the worker's and the run's, and another worker may run the next one.
      const boxed = (recorded: RoundOutcome): RoundOutcome =>
        options.sandbox === undefined ? recorded : { ...recorded, sandboxed: true };
      const outcome = steps.runStep(async (): Promise<RoundOutcome> => {
        const controller = new AbortController();
        const cancel = steps.cancelSignal();
        const abort = () => controller.abort(options.signal.reason);
        const cancelled = () => {
          onCancel();
          abort();
        };
        options.signal.addEventListener('abort', abort, { once: true });
        cancel?.addEventListener('abort', cancelled, { once: true });
        if (options.signal.aborted) abort();
        if (cancel?.aborted) cancelled();
        try {
          let child: ChildRun;
          try {
            // Everything the engine gave (the run's sandbox above all), but the signal this step aborts.
            child = await real.start(request, { ...options, signal: controller.signal });
          } catch (error) {
            if (controller.signal.aborted) throw error;
            return boxed(failureOf('start', error));
          }
          markStarted();
          try {
            const output = await child.report;
            return boxed({ ok: true, output, usage: usageRead(child) });
          } catch (error) {
            if (controller.signal.aborted) throw error;
            return boxed(failureOf('report', error));
          }
        } finally {
          options.signal.removeEventListener('abort', abort);
          cancel?.removeEventListener('abort', cancelled);
        }
      }, stepName);
      // Live, the child counts as started once the real one is; on a replay, once the recorded outcome is back.
      const first = await Promise.race([started, outcome]);
      if (first !== undefined && !first.ok && first.phase === 'start') throw errorOf(first);
      let usage: RalphUsage | null = null;
      const report = outcome.then((recorded) => {
        if (!recorded.ok) throw errorOf(recorded);
        usage = recorded.usage ?? null;
        return recorded.output;
      });
      return { id: `${runId}:${stepName}`, report, usage: () => usage };
    },
  };
}
