import { howToAnswer } from '../../contract/answer-messages.js';
import { errorText } from '../../contract/error-text.js';
import { isRalphError, RalphError } from '../../contract/errors.js';
import { packageVersion } from '../../package-root.js';
import { answerFolderSource } from '../../run/answer-folder.js';
import type { AgentOptions } from './agent-options.js';
import type { AskOptions } from './ask-options.js';
import { mcpServing } from './cli-texts.js';
import { createCliTool } from './cli-tool.js';
import type { EvaluatorOptions } from './evaluator-options.js';
import { EXIT, exitCodeForError } from './exit-codes.js';
import type { GuardRailOptions } from './guard-rail-options.js';
import { type NotifyOptions, notifierFor } from './notify-options.js';
import { type McpTracing, startMcpTracing } from './run-tracing.js';
import type { SandboxOptions } from './sandbox-options.js';
import { FORCED_SETTLE_MS, trapInterrupts } from './signals.js';

/** The options of `ralph mcp`. */
export interface McpOptions
  extends AgentOptions,
    GuardRailOptions,
    EvaluatorOptions,
    SandboxOptions,
    NotifyOptions,
    AskOptions {
  /** The deployment's default and ceiling for a call's maxRounds. */
  maxRounds?: string;
  /** How many calls may run at once; one more is refused. */
  maxConcurrentRuns?: string;
  /** Serves the `ralph_batch` tool beside ralph (off by default: a batch writes branches). */
  batch?: boolean;
}

/** The error answering an MCP request too large to read. */
export function messageTooLarge(bytes: number, max: number): string {
  return `ralph mcp skipped a message of ${bytes} bytes; messages of at most ${max} bytes are read`;
}

/** Refusal: --max-concurrent-runs is not a positive whole number. */
export function maxConcurrentRunsInvalid(text: string): string {
  return `ralph mcp --max-concurrent-runs must be a positive whole number (got "${text}")`;
}

/** The --max-concurrent-runs number, or undefined (the server's default) when not given; throws on a bad one. */
function concurrentRunsOf(options: McpOptions): number | undefined {
  const text = options.maxConcurrentRuns;
  if (text === undefined) return undefined;
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RalphError({ code: 'refused', message: maxConcurrentRunsInvalid(text) });
  }
  return value;
}

/** The `ralph_batch` tool of `ralph mcp --batch`: the server's agent and guard rails, in the calling agent's cwd. */
async function batchToolOf(options: McpOptions, hosted: ReturnType<typeof createCliTool>) {
  const [{ createRalphBatchTool }, { mcpBatchOptions }] = await Promise.all([
    import('../batch-tool.js'),
    import('./mcp-batch.js'),
  ]);
  return createRalphBatchTool(mcpBatchOptions(options, hosted.tool.config, hosted.agent.cwd));
}

/**
 * Resolves when the client is gone (stdin ended) or the server is told to stop (SIGINT, SIGTERM). A signal after
 * that kills the children outright and exits: a client that closed its end and then signals the server (as the
 * MCP SDK's stdio transport does, SIGTERM and later SIGKILL) will not wait for a stubborn agent, and a server killed
 * while it waits would leave that agent running.
 */
function untilStopped(killChildren: () => void): { stopped: Promise<void>; release: () => void } {
  let stopping = false;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const stop = () => {
    stopping = true;
    resolveStopped();
  };
  let forced = false;
  const force = () => {
    if (forced) process.exit(EXIT.cancelled);
    forced = true;
    killChildren();
    stop();
    // The shutdown under way normally ends the process as soon as the killed children are reaped; the timer is the
    // backstop, unref'd so that it never holds a finished server open.
    setTimeout(() => process.exit(EXIT.cancelled), FORCED_SETTLE_MS).unref();
  };
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  const release = trapInterrupts({ cancel: () => (stopping ? force() : stop()), force });
  return { stopped, release };
}

/**
 * `ralph mcp`: serves the ralph tool over stdio until the client goes away. Bad options are refused before the
 * server starts (exit 2, message on stderr; stdout belongs to the protocol). On shutdown every call in flight is
 * cancelled and the server waits until its child has stopped; a second signal kills the children and exits.
 */
export async function mcpCommand(options: McpOptions): Promise<number> {
  let hosted: ReturnType<typeof createCliTool>;
  let maxConcurrentRuns: number | undefined;
  let traces: McpTracing | undefined;
  let notifier: ReturnType<typeof notifierFor>;
  try {
    maxConcurrentRuns = concurrentRunsOf(options);
    notifier = notifierFor(options);
    traces = await startMcpTracing(process.stderr);
    hosted = createCliTool(options, {
      agentId: `mcp:${process.pid}`,
      ...(traces === undefined ? {} : { traceProvider: traces.runs.traceProvider }),
      ...(options.maxRounds === undefined ? {} : { deploymentMaxRounds: options.maxRounds }),
    });
    // Every call would fail its round 1 on an agent that cannot start: refused here, before anything is served.
    // So would every call of a sandboxed server where bubblewrap cannot run: never served unboxed.
    await hosted.preflight();
  } catch (error) {
    const detail = isRalphError(error) && error.detail !== undefined ? `${error.detail}\n` : '';
    process.stderr.write(`${errorText(error)}\n${detail}`);
    await traces?.shutdown();
    return isRalphError(error) ? exitCodeForError(error.code) : EXIT.failed;
  }

  const [{ createRalphMcpServer }, { StdioServerTransport }, { boundedLines, MAX_MESSAGE_BYTES }] =
    await Promise.all([
      import('../mcp/server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../mcp/bounded-lines.js'),
    ]);
  const batch = options.batch === true ? await batchToolOf(options, hosted) : undefined;
  const mcp = await createRalphMcpServer(hosted.tool, {
    ...(batch === undefined ? {} : { batch }),
    agent: hosted.agent,
    version: packageVersion(),
    ...(maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns }),
    ...(traces === undefined ? {} : { trace: traces.runs }),
    notifier,
    // Beside ralph_answer, a person may answer from a terminal: the run's question waits in the answer folder too.
    answers: { source: answerFolderSource(), howToAnswer },
  });
  const { stopped, release } = untilStopped(hosted.killChildren);
  // A message past MAX_MESSAGE_BYTES is skipped and its request answered with an error; the connection stays.
  const lines = boundedLines((id, bytes) => {
    if (id === null) return;
    transport
      .send({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: messageTooLarge(bytes, MAX_MESSAGE_BYTES) },
      })
      .catch(() => {});
  });
  const transport = new StdioServerTransport(process.stdin.pipe(lines), process.stdout, {
    maxBufferSize: 2 * MAX_MESSAGE_BYTES,
  });
  await mcp.server.connect(transport);
  // Started by hand, a server that waits silently on stdin looks hung; a client keeps this line in its log.
  process.stderr.write(`${mcpServing(process.argv.slice(2))}\n`);
  await stopped;
  await mcp.shutdown();
  // The calls' last notifications get a short while to arrive, and no longer.
  await notifier.close();
  await mcp.server.close();
  await traces?.shutdown();
  release();
  process.stdin.destroy();
  return EXIT.complete;
}
