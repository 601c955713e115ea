import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type AnswerInbox, createAnswerInbox, firstAnswer } from '../../actors/answer-inbox.js';
import {
  howToAnswerWithTool,
  RALPH_ANSWER_DESCRIPTION,
  RALPH_ANSWER_TOOL,
} from '../../contract/answer-messages.js';
import type { AnswerSource } from '../../contract/answers.js';
import { errorText } from '../../contract/error-text.js';
import { isRalphError } from '../../contract/errors.js';
import { workflowFailed } from '../../contract/messages.js';
import type { AgentRef } from '../../contract/types.js';
import type { RalphUsage } from '../../contract/usage.js';
import type { Notifier } from '../../notify/notifier.js';
import { runNotifications } from '../../notify/run-notifications.js';
import { onProgressOf } from '../../run/progress-listeners.js';
import type { RalphTool } from '../../run/tool.js';
import type { RunsTracer } from '../../trace/runs-tracer.js';
import { answerArgsJsonSchema, answerThroughInbox } from '../answer-tool.js';
import type { RalphBatchTool } from '../batch-tool.js';
import { callBatch, ralphBatchToolDefinition } from './batch-call.js';
import { callProgress, type ProgressLink, USAGE_META_KEY } from './call-progress.js';
import { structuredResultJsonSchema } from './envelope-schema.js';

/** What the MCP server answers for. */
export interface RalphMcpServerOptions {
  /** The calling agent: its cwd is the workspace of every call. */
  agent: AgentRef;
  /** The server's name and version in the MCP handshake. */
  name?: string;
  version?: string;
  /** How many calls may run at once (default DEFAULT_MAX_CONCURRENT_RUNS); one more is refused, starting nothing. */
  maxConcurrentRuns?: number;
  /** Traces the calls' runs (a `ralph mcp` whose environment asks for traces): their progress and outcomes. */
  trace?: Pick<RunsTracer, 'onProgress' | 'finish'>;
  /** Where each call's notifications go (run ended, blocked, waiting out a usage limit); none when omitted. */
  notifier?: Notifier;
  /**
   * Another place a waiting call's answer may come from, raced with the `ralph_answer` tool, and the line that tells
   * a person how to use it (in `run.question` notifications). `ralph mcp` passes the answer folder, so that
   * `ralph answer <run-id>` in a terminal answers too. Used only when the tool's config asks (`waitForAnswersMs`).
   */
  answers?: { source: AnswerSource; howToAnswer: (runId: string) => string };
  /** How often a waiting call's progress says its question again (default QUESTION_REMINDER_MS). */
  questionReminderMs?: number;
  /**
   * The `ralph_batch` tool, listed and served beside ralph only when given (`ralph mcp --batch`: a batch writes
   * branches). A batch call counts as one of the server's concurrent runs.
   */
  batch?: RalphBatchTool;
}

/**
 * How often a call that waits for an answer says its question again: often enough that a client which cancels a
 * request after a minute without progress (the MCP SDK's `timeout` with `resetTimeoutOnProgress`) keeps waiting.
 */
export const QUESTION_REMINDER_MS = 30_000;

/**
 * How many calls a server runs at once unless told otherwise: one. Every call works in the same folder (the calling
 * agent's cwd), so two loops at once would edit the same files; a client that sends many calls at once (forty were
 * seen) would start that many agents.
 */
export const DEFAULT_MAX_CONCURRENT_RUNS = 1;

/** The refusal of a call beyond the server's concurrent runs (not a reference text: the reference runs one loop). */
export function tooManyRuns(max: number): string {
  return (
    `Ralph refused the call: ${max === 1 ? 'a run is' : `${max} runs are`} already going on this server ` +
    `(ralph mcp --max-concurrent-runs ${max}); call again once it has settled`
  );
}

/** An MCP server exposing the ralph tool, not yet connected to a transport. */
export interface RalphMcpServer {
  /** The SDK's low-level server: connect it to any transport. */
  server: Server;
  /** Cancels every call in flight and resolves once each has settled, its child stopped. */
  shutdown(): Promise<void>;
}

/**
 * How long a call's result waits for the client to answer the `ping` that confirms its progress was delivered. A
 * client must answer pings; one that does not delays each result by this much and may miss the last progress.
 */
const PROGRESS_ROUND_TRIP_TIMEOUT_MS = 10_000;

/** A deep copy of a frozen schema, typed as the SDK's schema slot it fills. */
const plainSchema = <T>(schema: unknown): T => structuredClone(schema) as T;

/** The ralph tool as `tools/list` shows it: the guidance as description, the tool's own input schema. */
export function ralphToolDefinition(tool: RalphTool): Tool {
  return {
    name: tool.name,
    title: 'ralph',
    description: tool.description,
    inputSchema: plainSchema<Tool['inputSchema']>(tool.jsonSchema),
    outputSchema: plainSchema<Tool['outputSchema']>(structuredResultJsonSchema),
  };
}

/** The `ralph_answer` tool as `tools/list` shows it (listed only by a server whose tool's config asks). */
export function ralphAnswerToolDefinition(): Tool {
  return {
    name: RALPH_ANSWER_TOOL,
    title: 'ralph answer',
    description: RALPH_ANSWER_DESCRIPTION,
    inputSchema: plainSchema<Tool['inputSchema']>(answerArgsJsonSchema),
  };
}

/** An isError result whose first text is the tool's message and whose second, where there is one, the detail. */
function errorResult(error: unknown): CallToolResult {
  if (!isRalphError(error)) {
    return { isError: true, content: [{ type: 'text', text: workflowFailed(errorText(error)) }] };
  }
  const content: CallToolResult['content'] = [{ type: 'text', text: error.message }];
  if (error.detail !== undefined) content.push({ type: 'text', text: error.detail });
  return { isError: true, content };
}

/**
 * Creates the MCP server of the ralph tool. It uses the SDK's low-level `Server` so that nothing but the tool's own
 * checks judges a call: `{}` or `{ objective: 5 }` reach the tool and come back as `isError` results with the
 * reference's message, never the SDK's validation text. A call's result carries the native rendering as text, and
 * the envelope with that same text as `structuredContent` (see `structuredResultJsonSchema`); the request's abort
 * signal (the client's `notifications/cancelled`) cancels the run and the reply waits until its child has stopped.
 * The SDK is loaded here, on first use, so hosts that never serve MCP never load it.
 */
export async function createRalphMcpServer(
  tool: RalphTool,
  options: RalphMcpServerOptions,
): Promise<RalphMcpServer> {
  const [
    { Server },
    { CallToolRequestSchema, EmptyResultSchema, ErrorCode, ListToolsRequestSchema, McpError },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server(
    { name: options.name ?? 'ralph-machine', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} } },
  );
  const maxConcurrentRuns = options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS;
  const closing = new AbortController();
  const inFlight = new Set<Promise<CallToolResult>>();

  // A deployment that asks (config.waitForAnswersMs) has one inbox for all its calls, and a second tool to answer
  // through; one that does not lists and says exactly what it did before.
  const inbox: AnswerInbox | undefined =
    tool.config.waitForAnswersMs === undefined ? undefined : createAnswerInbox();
  const answers =
    inbox === undefined
      ? undefined
      : options.answers === undefined
        ? inbox.source
        : firstAnswer([inbox.source, options.answers.source]);
  const answerWays = (runId: string): string[] => [
    howToAnswerWithTool(runId),
    ...(options.answers === undefined ? [] : [options.answers.howToAnswer(runId)]),
  ];

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ralphToolDefinition(tool),
      ...(inbox === undefined ? [] : [ralphAnswerToolDefinition()]),
      ...(options.batch === undefined ? [] : [ralphBatchToolDefinition(options.batch)]),
    ],
  }));

  /** Runs `work` as one of the calls in flight: shutdown cancels it and waits for it. */
  const inFlightCall = async (work: Promise<CallToolResult>): Promise<CallToolResult> => {
    inFlight.add(work);
    try {
      return await work;
    } finally {
      inFlight.delete(work);
    }
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // An answer is never held up by the runs in flight: it is what one of them waits for.
    if (inbox !== undefined && request.params.name === RALPH_ANSWER_TOOL) {
      const { text, refused } = answerThroughInbox(inbox, request.params.arguments, 'mcp');
      return { content: [{ type: 'text', text }], ...(refused ? { isError: true } : {}) };
    }
    const { batch } = options;
    if (request.params.name !== tool.name && (batch === undefined || request.params.name !== batch.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    if (inFlight.size >= maxConcurrentRuns) {
      return { content: [{ type: 'text', text: tooManyRuns(maxConcurrentRuns) }], isError: true };
    }
    const args = request.params.arguments ?? {};
    const signal = AbortSignal.any([extra.signal, closing.signal]);
    const link: ProgressLink = {
      token: extra._meta?.progressToken,
      send: extra.sendNotification,
      roundTrip: () =>
        extra.sendRequest({ method: 'ping' }, EmptyResultSchema, {
          signal,
          timeout: PROGRESS_ROUND_TRIP_TIMEOUT_MS,
        }),
      signal,
    };
    if (batch !== undefined && request.params.name === batch.name) {
      return inFlightCall(callBatch(batch, args, link).catch(errorResult));
    }
    const progress = callProgress({
      ...link,
      ...(inbox === undefined ? {} : { reminderMs: options.questionReminderMs ?? QUESTION_REMINDER_MS }),
    });
    const notes =
      options.notifier?.enabled === true
        ? runNotifications(options.notifier, { howToAnswer: answerWays })
        : undefined;
    let used: RalphUsage | undefined;
    const call = tool
      .execute(args, {
        agent: options.agent,
        signal,
        ...(answers === undefined ? {} : { answers }),
        ...onProgressOf(
          progress?.onProgress,
          options.trace?.onProgress,
          notes === undefined ? undefined : (event) => notes.onProgress(event),
        ),
        onUsage: (total) => {
          used = total;
          notes?.onUsage(total);
        },
      })
      .then(
        (envelope) => {
          options.trace?.finish({ envelope, ...(used === undefined ? {} : { usage: used }) });
          return envelope;
        },
        (error: unknown) => {
          options.trace?.finish({ error, ...(used === undefined ? {} : { usage: used }) });
          throw error;
        },
      )
      .then(
        (envelope): CallToolResult => {
          notes?.settled(envelope, tool.config.maxResultChars);
          const { text } = tool.render.result(args, envelope);
          // The text first: Claude Code hands the model this object as JSON, and the model reads it from the top.
          return { content: [{ type: 'text', text }], structuredContent: { text, ...envelope } };
        },
        (error: unknown) => {
          if (isRalphError(error)) notes?.failed(error);
          return errorResult(error);
        },
      )
      .then(async (result) => {
        // What the run used travels beside the result, never in it: the envelope stays the reference's.
        if (used !== undefined) result._meta = { ...result._meta, [USAGE_META_KEY]: used };
        // A round's progress reaches the client before the call's result, success or error alike.
        await progress?.delivered();
        return result;
      });
    return inFlightCall(call);
  });

  return {
    server,
    async shutdown() {
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
