import { createAnswerInbox } from '../../actors/answer-inbox.js';
import type { AnswerSource } from '../../contract/answers.js';
import { RalphError } from '../../contract/errors.js';
import type { RecordingSink } from '../../inspect/recording-format.js';
import type { RunModelBuilder } from '../../inspect/run-model-builder.js';
import type { InspectServer } from './inspect-server.js';

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

/** The live inspector of one `ralph run`: fed the run's recording lines, and ended after it. */
export interface RunInspector {
  readonly url: string;
  /**
   * A recording sink: the run's lines (header first) rebuild the run model the page shows. A line the builder
   * cannot take stops the page's updates, never the run or its recording.
   */
  readonly sink: RecordingSink;
  /**
   * The answers a person gives on the page (`--ask`): the run's answer source, beside the terminal's and the others.
   * While the run waits on it, the page shows the question with an answer box; without it, the page only shows.
   */
  readonly answers: AnswerSource;
  /** Stops the inspector: at once, or under --inspect-keep once the user presses Ctrl-C. */
  finish(): Promise<void>;
}

/** Resolves on the next SIGINT or SIGTERM. */
export function nextInterrupt(): Promise<void> {
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
 * the sink the run records into. Refused when the port is no port or cannot be listened on.
 */
export async function openRunInspector(
  options: InspectOptions,
  stderr: NodeJS.WritableStream,
): Promise<RunInspector | undefined> {
  const port = inspectPort(options);
  if (port === undefined) return undefined;
  // Loaded only for a run that asks for it: a plain `ralph run` never pays for the page and its server.
  const [{ startInspectServer }, { machineSvg }, { createRunModelBuilder }] = await Promise.all([
    import('./inspect-server.js'),
    import('./machine-svg.js'),
    import('../../inspect/run-model-builder.js'),
  ]);
  let server: InspectServer;
  const inbox = createAnswerInbox();
  try {
    server = await startInspectServer({
      port,
      machineSvg: machineSvg('ralph run --inspect'),
      answers: inbox,
    });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new RalphError({ code: 'refused', message: inspectCannotListen(port, reason) });
  }
  stderr.write(`${inspectorAt(server.url)}\n`);
  let builder: RunModelBuilder | undefined;
  let broken = false;
  return {
    url: server.url,
    answers: inbox.source,
    sink: {
      write(line) {
        if (broken) return;
        try {
          if (builder === undefined) {
            builder = createRunModelBuilder(line);
            server.update(builder.model);
          } else server.update(builder.add(line));
        } catch {
          // The page shows what it had; the run and its recording go on regardless.
          broken = true;
        }
      },
    },
    async finish() {
      if (options.inspectKeep === true) {
        stderr.write(`${inspectorStays(server.url)}\n`);
        await nextInterrupt();
      }
      await server.close();
    },
  };
}
