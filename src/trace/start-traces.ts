import { createHash } from 'node:crypto';
import { errorText } from '../contract/error-text.js';
import { traceSettingsOf } from './otel-env.js';
import { startTraceExport, type TraceExport } from './otlp-export.js';

/** What a host says, after its own prefix, when traces were asked for but the OpenTelemetry SDK did not start. */
export const tracesOff = (reason: string): string => `traces are off: ${reason}`;

/**
 * Starts exporting traces when `env` asks for them (see otel-env.ts), else returns undefined having loaded nothing.
 * An SDK that cannot start costs the host its traces, not its work: `warn` gets the tracesOff line.
 */
export async function startTracesIfAsked(
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
): Promise<TraceExport | undefined> {
  const settings = traceSettingsOf(env);
  if (settings === undefined) return undefined;
  try {
    return await startTraceExport(settings, env);
  } catch (error) {
    warn(tracesOff(errorText(error)));
    return undefined;
  }
}

/**
 * The trace id of a fleet run (32 hex digits), derived from its workflow id: every worker that runs it, the one that
 * began it and any that takes it over, writes into the same trace, with nothing to store.
 */
export function fleetTraceIdOf(workflowId: string): string {
  return createHash('sha256').update(`ralph fleet run ${workflowId}`).digest('hex').slice(0, 32);
}
