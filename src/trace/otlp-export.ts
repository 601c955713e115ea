import type { TraceSettings } from './otel-env.js';
import type { TraceTools } from './run-tracer.js';

/**
 * How long a host waits, at most, for its traces to leave when the run is over: the exporter's own timeout for one
 * request too, so that a receiver that is down or slow costs a run no more than this.
 */
export const TRACE_FLUSH_BOUND_MS = 2_000;

/** A tracer that exports over OTLP/HTTP, and its way out. */
export interface TraceExport extends TraceTools {
  /** Sends what is still buffered and stops the exporter; settles within TRACE_FLUSH_BOUND_MS, never rejects. */
  shutdown(): Promise<void>;
}

/** The package's instrumentation scope. */
const SCOPE = 'ralph-machine';

/** A CommonJS package's exports, which Node's import() may put under `default` only. */
const exportsOf = <T extends object>(module: T): T => (module as T & { default?: T }).default ?? module;

/**
 * Starts exporting traces over OTLP/HTTP (JSON) to the endpoint the environment names, with the OpenTelemetry SDK
 * loaded now, on first use: a run that traces nothing never loads it (the CLI bundle keeps it external). The run's
 * span joins the trace of a `TRACEPARENT` in `env` (a ralph started by a traced process), else starts a new one.
 */
export async function startTraceExport(
  settings: TraceSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TraceExport> {
  const [api, core, sdk, otlp, resources] = await Promise.all([
    import('@opentelemetry/api').then(exportsOf),
    import('@opentelemetry/core').then(exportsOf),
    import('@opentelemetry/sdk-trace-base').then(exportsOf),
    import('@opentelemetry/exporter-trace-otlp-http').then(exportsOf),
    import('@opentelemetry/resources').then(exportsOf),
  ]);
  const exporter = new otlp.OTLPTraceExporter({ timeoutMillis: TRACE_FLUSH_BOUND_MS });
  // Random ids, but the next root span's trace id when withTraceId names one (span starts are synchronous).
  const random = new sdk.RandomIdGenerator();
  let nextTraceId: string | undefined;
  const idGenerator = {
    generateTraceId: () => nextTraceId ?? random.generateTraceId(),
    generateSpanId: () => random.generateSpanId(),
  };
  const provider = new sdk.BasicTracerProvider({
    idGenerator,
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName })),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { exportTimeoutMillis: TRACE_FLUSH_BOUND_MS })],
  });
  const propagator = new core.W3CTraceContextPropagator();
  const carrier = { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE };
  const parent = propagator.extract(api.ROOT_CONTEXT, carrier, {
    get: (from, key) => from[key as keyof typeof carrier],
    keys: (from) => Object.keys(from),
  });
  return {
    tracer: provider.getTracer(SCOPE),
    api,
    propagator,
    parent,
    withTraceId(traceId, body) {
      nextTraceId = traceId;
      try {
        return body();
      } finally {
        nextTraceId = undefined;
      }
    },
    async shutdown() {
      let bound: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        bound = setTimeout(resolve, TRACE_FLUSH_BOUND_MS);
        bound.unref();
      });
      // A receiver that refuses or is down is no failure of the run: what could not be sent is dropped.
      await Promise.race([provider.shutdown().catch(() => {}), late]);
      clearTimeout(bound);
    },
  };
}
