import { RalphError } from '../../contract/errors.js';
import type { RalphEnvelope, RalphProgressEvent } from '../../contract/types.js';
import { createProgressRunModel, type SettledRun } from './inspect-progress-model.js';
import type { InspectServer } from './inspect-server.js';
import { packageVersion } from './version.js';

/** The inspector options of `ralph run`: `--inspect [port]` (true when given without a port) and `--inspect-keep`. */
export interface InspectOptions {
  inspect?: string | true;
  inspectKeep?: boolean;
}

/** Refusal: `--inspect` was given something that is not a port. */
export function inspectPortInvalid(value: string): string {
  return (
    `ralph --inspect takes a port from 0 to 65535 (0: any free port), not ${JSON.stringify(value)}; ` +
    'put the objective before --inspect, or write --inspect=PORT'
  );
}

/** Refusal: the inspector could not listen. */
export function inspectCannotListen(port: number, reason: string): string {
  return `ralph --inspect cannot listen on 127.0.0.1:${port}: ${reason}`;
}

/** Said on stderr once the inspector listens. */
export const inspectorAt = (url: string): string => `ralph: inspector at ${url}`;

/** Said on stderr when the run ended and --inspect-keep keeps the page up. */
export const inspectorStays = (url: string): string =>
  `ralph: the run has ended; the inspector stays at ${url} until Ctrl-C`;

/** The port `--inspect` names (0 when given without one), or undefined when the run has no inspector. */
export function inspectPort(options: InspectOptions): number | undefined {
  if (options.inspect === undefined) return options.inspectKeep === true ? 0 : undefined;
  if (options.inspect === true) return 0;
  const text = options.inspect.trim();
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new RalphError({ code: 'refused', message: inspectPortInvalid(options.inspect) });
  }
  return port;
}

/** The live inspector of one `ralph run`: fed the run's progress and ending, and ended after it. */
export interface RunInspector {
  readonly url: string;
  /** The run's onProgress: `listener`, and then the inspector shows the event. */
  following(listener: (event: RalphProgressEvent) => void): (event: RalphProgressEvent) => void;
  /** Shows the envelope the run settled with. */
  settledWith(envelope: RalphEnvelope): void;
  /** Shows the error the run (or the CLI around it) ended with. */
  failedWith(error: unknown): void;
  /** Stops the inspector: at once, or under --inspect-keep once the user presses Ctrl-C. */
  finish(): Promise<void>;
}

/** A failed run's ending as the inspector shows it, from what `tool.execute` (or the CLI) threw. */
function failureOf(result: unknown): SettledRun {
  if (result instanceof RalphError) {
    const { runId, ...failure } = result.toJSON();
    return runId === undefined ? { ok: false, failure } : { ok: false, failure, runId };
  }
  const message = result instanceof Error ? result.message : String(result);
  return { ok: false, failure: { code: 'workflow-failed', message: `ralph: internal error: ${message}` } };
}

/** Resolves on the next SIGINT or SIGTERM. */
function nextInterrupt(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * Starts the live inspector `--inspect` asks for (undefined without it), says its address on `stderr`, and returns
 * what the run feeds it. Refused when the port is no port or cannot be listened on.
 */
export async function openRunInspector(
  objective: string | undefined,
  options: InspectOptions,
  stderr: NodeJS.WritableStream,
): Promise<RunInspector | undefined> {
  const port = inspectPort(options);
  if (port === undefined) return undefined;
  // Loaded only for a run that asks for it: a plain `ralph run` never pays for the page and its server.
  const [{ startInspectServer }, { machineSvg }] = await Promise.all([
    import('./inspect-server.js'),
    import('./machine-svg.js'),
  ]);
  let server: InspectServer;
  try {
    server = await startInspectServer({ port, machineSvg: machineSvg('ralph run --inspect') });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new RalphError({ code: 'refused', message: inspectCannotListen(port, reason) });
  }
  const model = createProgressRunModel(objective ?? null, packageVersion());
  server.update(model.current());
  stderr.write(`${inspectorAt(server.url)}\n`);
  return {
    url: server.url,
    following: (listener) => (event) => {
      listener(event);
      server.update(model.progress(event));
    },
    settledWith: (envelope) => server.update(model.settle({ ok: true, envelope })),
    failedWith: (error) => server.update(model.settle(failureOf(error))),
    async finish() {
      if (options.inspectKeep === true) {
        stderr.write(`${inspectorStays(server.url)}\n`);
        await nextInterrupt();
      }
      await server.close();
    },
  };
}
