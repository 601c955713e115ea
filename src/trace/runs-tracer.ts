import type { RalphProgressEvent, SubagentProvider } from '../contract/types.js';
import { createRunTracer, type RunOutcome, type RunTracer, type TraceTools } from './run-tracer.js';

/** Traces every run of a host that serves many (`ralph mcp`): one trace per run, told apart by run id. */
export interface RunsTracer {
  /** The provider as the host's runs use it: each child is traced in its own run's trace. */
  traceProvider(provider: SubagentProvider): SubagentProvider;
  /** Feeds a progress event of any run. */
  onProgress(event: RalphProgressEvent): void;
  /** Ends the trace of the run the outcome names (its envelope's or its error's run id); others are untouched. */
  finish(outcome: RunOutcome): void;
}

/** The run id an outcome names, if any (a call refused before its run began names none). */
function runIdOf(outcome: RunOutcome): string | undefined {
  if ('envelope' in outcome) return outcome.envelope.runId;
  const runId = (outcome.error as { runId?: unknown } | null)?.runId;
  return typeof runId === 'string' ? runId : undefined;
}

/**
 * Creates the tracer of a host's runs: a run's trace begins with its first progress event (its first round), so a
 * call refused before it began has none, and ends when the host hands its outcome over.
 */
export function createRunsTracer(tools: TraceTools): RunsTracer {
  const runs = new Map<string, RunTracer>();
  const tracerOf = (runId: string): RunTracer => {
    let tracer = runs.get(runId);
    if (tracer === undefined) {
      tracer = createRunTracer(tools, { runId });
      runs.set(runId, tracer);
    }
    return tracer;
  };
  return {
    traceProvider: (provider) => ({
      ...provider,
      start: (request, options) => tracerOf(request.runId).traceProvider(provider).start(request, options),
    }),
    onProgress: (event) => tracerOf(event.runId).onProgress(event),
    finish(outcome) {
      const runId = runIdOf(outcome);
      if (runId === undefined) return;
      runs.get(runId)?.finish(outcome);
      runs.delete(runId);
    },
  };
}
