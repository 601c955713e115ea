import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type {
  CallToolResult,
  ProgressToken,
  ServerNotification,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { isRalphError } from '../../contract/errors.js';
import { workflowFailed } from '../../contract/messages.js';
import type { AgentRef, RalphProgressEvent } from '../../contract/types.js';
import type { RalphTool } from '../tool.js';
import { envelopeJsonSchema } from './envelope-schema.js';

/** What the MCP server answers for. */
export interface RalphMcpServerOptions {
  /** The calling agent: its cwd is the workspace of every call. */
  agent: AgentRef;
  /** The server's name and version in the MCP handshake. */
  name?: string;
  version?: string;
}

/** An MCP server exposing the ralph tool, not yet connected to a transport. */
export interface RalphMcpServer {
  /** The SDK's low-level server: connect it to any transport. */
  server: Server;
  /** Cancels every call in flight and resolves once each has settled, its child stopped. */
  shutdown(): Promise<void>;
}

/** A deep copy of a frozen schema, typed as the SDK's schema slot it fills. */
const plainSchema = <T>(schema: unknown): T => structuredClone(schema) as T;

/** The ralph tool as `tools/list` shows it: the guidance as description, the tool's own input schema. */
export function ralphToolDefinition(tool: RalphTool): Tool {
  return {
    name: tool.name,
    title: 'ralph',
    description: tool.description,
    inputSchema: plainSchema<Tool['inputSchema']>(tool.jsonSchema),
    outputSchema: plainSchema<Tool['outputSchema']>(envelopeJsonSchema),
  };
}

/** An isError result whose first text is the tool's message and whose second, where there is one, the detail. */
function errorResult(error: unknown): CallToolResult {
  if (!isRalphError(error)) {
    const text = workflowFailed(error instanceof Error ? error.message : String(error));
    return { isError: true, content: [{ type: 'text', text }] };
  }
  const content: CallToolResult['content'] = [{ type: 'text', text: error.message }];
  if (error.detail !== undefined) content.push({ type: 'text', text: error.detail });
  return { isError: true, content };
}

/** One progress notification per round, sent when the round's report is accepted. */
function progressSender(
  token: ProgressToken | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): ((event: RalphProgressEvent) => void) | undefined {
  if (token === undefined) return undefined;
  return (event) => {
    if (event.type !== 'report-accepted') return;
    const { status, summary } = event.report;
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: event.round,
        total: event.maxRounds,
        message: `Round ${event.round}/${event.maxRounds} reported ${status}: ${summary}`,
      },
    }).catch(() => {
      // A client that went away misses its progress; the call itself still settles.
    });
  };
}

/**
 * Creates the MCP server of the ralph tool. It uses the SDK's low-level `Server` so that nothing but the tool's own
 * checks judges a call: `{}` or `{ objective: 5 }` reach the tool and come back as `isError` results with the
 * reference's message, never the SDK's validation text. A call's result carries the envelope as
 * `structuredContent` and the native rendering as text; the request's abort signal (the client's
 * `notifications/cancelled`) cancels the run and the reply waits until its child has stopped. The SDK is loaded
 * here, on first use, so hosts that never serve MCP never load it.
 */
export async function createRalphMcpServer(
  tool: RalphTool,
  options: RalphMcpServerOptions,
): Promise<RalphMcpServer> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  const server = new Server(
    { name: options.name ?? 'ralph-machine', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} } },
  );
  const closing = new AbortController();
  const inFlight = new Set<Promise<CallToolResult>>();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ralphToolDefinition(tool)] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name !== tool.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    const args = request.params.arguments ?? {};
    const onProgress = progressSender(extra._meta?.progressToken, extra.sendNotification);
    const call = tool
      .execute(args, {
        agent: options.agent,
        signal: AbortSignal.any([extra.signal, closing.signal]),
        ...(onProgress === undefined ? {} : { onProgress }),
      })
      .then(
        (envelope): CallToolResult => ({
          content: [{ type: 'text', text: tool.render.result(args, envelope).text }],
          structuredContent: { ...envelope },
        }),
        errorResult,
      );
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
    }
  });

  return {
    server,
    async shutdown() {
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
