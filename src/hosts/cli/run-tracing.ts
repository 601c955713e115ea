import type { RalphProgressEvent, SubagentProvider } from '../../contract/types.js';
import { createRunTracer, type RunOutcome } from '../../trace/run-tracer.js';
import { createRunsTracer, type RunsTracer } from '../../trace/runs-tracer.js';
import { startTracesIfAsked } from '../../trace/start-traces.js';

/** The trace of one `ralph run`, when the environment asks for traces (OTEL_EXPORTER_OTLP_ENDPOINT and kin). */
export interface RunTracing {
  traceProvider(provider: SubagentProvider): SubagentProvider;
  onProgress(event: RalphProgressEvent): void;
  /** Ends the run's spans with its outcome and sends them; settles within the flush bound, never rejects. */
  end(outcome: RunOutcome): Promise<void>;
}

/**
 * Starts the run's trace, or returns undefined when the environment asks for none; only then is OpenTelemetry
 * loaded. An SDK that cannot be loaded costs the run its trace, not its work: one line on `stderr` says so.
 */
export async function startRunTracing(
  stderr: NodeJS.WritableStream,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunTracing | undefined> {
  const exported = await startTracesIfAsked(env, (line) => stderr.write(`ralph: ${line}\n`));
  if (exported === undefined) return undefined;
  const tracer = createRunTracer(exported);
  return {
    traceProvider: tracer.traceProvider,
    onProgress: tracer.onProgress,
    async end(outcome) {
      tracer.finish(outcome);
      await exported.shutdown();
    },
  };
}

/** `onProgress`, and the run's trace too when there is one. */
export function alsoTo(
  tracing: RunTracing | undefined,
  onProgress: (event: RalphProgressEvent) => void,
): (event: RalphProgressEvent) => void {
  if (tracing === undefined) return onProgress;
  return (event) => {
    tracing.onProgress(event);
    onProgress(event);
  };
}

/** The traces of `ralph mcp`: every call's run, each its own trace. */
export interface McpTracing {
  runs: RunsTracer;
  /** Sends what is left, within the flush bound; never rejects. */
  shutdown(): Promise<void>;
}

/** Starts `ralph mcp`'s traces, or returns undefined (having loaded nothing) when the environment asks for none. */
export async function startMcpTracing(
  stderr: NodeJS.WritableStream,
  env: NodeJS.ProcessEnv = process.env,
): Promise<McpTracing | undefined> {
  const exported = await startTracesIfAsked(env, (line) => stderr.write(`ralph mcp: ${line}\n`));
  return exported === undefined
    ? undefined
    : { runs: createRunsTracer(exported), shutdown: exported.shutdown };
}
