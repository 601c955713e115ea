import { errorText } from '../../contract/error-text.js';
import type { ChildRun, SubagentProvider } from '../../contract/types.js';

/** What the durable provider needs of DBOS, inside a run's workflow. */
export interface DurableSteps {
  /** `DBOS.runStep`: runs `body` once and records its result; on a replay returns the recorded result at once. */
  runStep<T>(body: () => Promise<T>, name: string): Promise<T>;
  /** The running step's `DBOS.stepStatus.cancelSignal`: aborted about a second after the workflow is cancelled. */
  cancelSignal(): AbortSignal | undefined;
}

/**
 * One round as its step records it: the raw output, or how the round failed. A failure is recorded as data, not as
 * a thrown error, so a replay rejects with the very message the round failed with and the machine decides the
 * same. A round stopped by a cancel records nothing: the step throws, and a resumed run starts that round again.
 */
export type RoundOutcome =
  | { ok: true; output: unknown }
  | { ok: false; phase: 'start' | 'report'; message: string };

/** The step name of a round: replays check that the recorded step at each position has this name. */
export const roundStepName = (round: number): string => `round-${round}`;

/**
 * Wraps a provider so that each round is one DBOS step: start the real child and wait for its report, returning
 * the raw output. When DBOS re-executes a recovered run, the rounds that completed return their recorded outputs
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
      let markStarted: () => void = () => {};
      const started = new Promise<undefined>((resolve) => {
        markStarted = () => resolve(undefined);
      });
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
            child = await real.start(request, {
              signal: controller.signal,
              terminationGraceMs: options.terminationGraceMs,
            });
          } catch (error) {
            if (controller.signal.aborted) throw error;
            return { ok: false, phase: 'start', message: errorText(error) };
          }
          markStarted();
          try {
            return { ok: true, output: await child.report };
          } catch (error) {
            if (controller.signal.aborted) throw error;
            return { ok: false, phase: 'report', message: errorText(error) };
          }
        } finally {
          options.signal.removeEventListener('abort', abort);
          cancel?.removeEventListener('abort', cancelled);
        }
      }, roundStepName(request.round));
      // Live, the child counts as started once the real one is; on a replay, once the recorded outcome is back.
      const first = await Promise.race([started, outcome]);
      if (first !== undefined && !first.ok && first.phase === 'start') throw new Error(first.message);
      const report = outcome.then((recorded) => {
        if (recorded.ok) return recorded.output;
        throw new Error(recorded.message);
      });
      return { id: `${runId}:${roundStepName(request.round)}`, report };
    },
  };
}
