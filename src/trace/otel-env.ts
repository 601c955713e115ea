/**
 * Whether the environment asks for traces, read the way the OpenTelemetry SDKs read it: an OTLP endpoint for
 * traces (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or the general `OTEL_EXPORTER_OTLP_ENDPOINT`) turns them on;
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turns them off whatever else is set. Plain reads of the
 * environment, so that a run that traces nothing loads nothing of OpenTelemetry.
 */

/** The service name a trace carries when `OTEL_SERVICE_NAME` names none. */
export const DEFAULT_SERVICE_NAME = 'ralph';

/** What a traced run needs from the environment; the exporter reads its endpoint, headers and timeout itself. */
export interface TraceSettings {
  /** `service.name` of the trace's resource. */
  serviceName: string;
}

const isSet = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/** The trace settings the environment asks for, or undefined when it asks for no traces. */
export function traceSettingsOf(env: NodeJS.ProcessEnv = process.env): TraceSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  if (!isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && !isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT))
    return undefined;
  const serviceName = env.OTEL_SERVICE_NAME?.trim();
  return {
    serviceName: serviceName === undefined || serviceName === '' ? DEFAULT_SERVICE_NAME : serviceName,
  };
}
