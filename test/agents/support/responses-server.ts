import { createServer, type ServerResponse } from 'node:http';
import { callerNamespaces, peerPid, processArgv } from './peer-pid.js';
import {
  callWaiters,
  closeScriptedServer,
  listenOnLoopback,
  parseJson,
  readBody,
  sendError,
} from './scripted-http.js';

/** One server-sent event of the OpenAI Responses API stream. */
export interface ResponsesEvent {
  type: string;
  [key: string]: unknown;
}

/** What the scripted model does with one `POST /v1/responses`. */
export type ScriptedReply =
  /** A whole stream: every event, then the end of the response. */
  | { kind: 'stream'; events: ResponsesEvent[] }
  /** An HTTP error status with a JSON error body. */
  | { kind: 'status'; status: number; message: string }
  /** A stream that stops after these events: the connection is destroyed without response.completed. */
  | { kind: 'cut'; events: ResponsesEvent[] }
  /** A stream that starts and never ends (until the client goes away or the server closes). */
  | { kind: 'hold'; events: ResponsesEvent[] };

/** One request the server received, as the model saw it. */
export interface LoggedRequest {
  method: string;
  url: string;
  /** The parsed JSON body (undefined when the body is empty or not JSON). */
  body: ResponsesRequestBody | undefined;
  /** The pid of the process that sent it (through /proc), when it could be told. */
  pid: number | undefined;
  /** That process's argv (read while it still held the connection), when it could be told. */
  argv: string[] | undefined;
}

/** The parts of a Responses API request the tests read. */
export interface ResponsesRequestBody {
  model?: string;
  stream?: boolean;
  input?: ResponsesInputItem[];
  tools?: { type: string; name?: string; [key: string]: unknown }[];
  text?: { format?: { type: string; name?: string; schema?: unknown; strict?: boolean } };
  [key: string]: unknown;
}

/** An item of a request's `input` (messages, function calls and their outputs). */
export interface ResponsesInputItem {
  type?: string;
  role?: string;
  call_id?: string;
  output?: unknown;
  content?: unknown;
  [key: string]: unknown;
}

/** Decides the reply to the n-th (0-based) `POST /v1/responses` from its body. */
export type Script = (body: ResponsesRequestBody, index: number) => ScriptedReply;

/** The scripted model server: its base URL, every request it got, and its shutdown. */
export interface ResponsesServer {
  /** `http://127.0.0.1:PORT/v1`, the `base_url` of a codex model provider. */
  baseUrl: string;
  /** Every request, in arrival order (including any the script does not answer). */
  requests: LoggedRequest[];
  /** The bodies of the `POST /v1/responses` requests alone. */
  responsesCalls(): ResponsesRequestBody[];
  /** The body of the n-th (0-based) responses call; throws when there was none. */
  responsesCall(index: number): ResponsesRequestBody;
  /** The PID namespace of the sender of every request (see callerNamespaces). */
  callerNamespaces: (string | undefined)[];
  /** Resolves when the n-th (1-based) responses call has arrived. */
  waitForCalls(count: number): Promise<void>;
  close(): Promise<void>;
}

let sequence = 0;

/** An id for a response or an item, unique within the test process. */
const nextId = (prefix: string): string => `${prefix}_${++sequence}`;

/** `response.created`, the first event of every stream. */
export const responseCreated = (id: string): ResponsesEvent => ({
  type: 'response.created',
  response: { id },
});

/** `response.completed`, the last event of a whole stream. */
export const responseCompleted = (id: string): ResponsesEvent => ({
  type: 'response.completed',
  response: {
    id,
    usage: {
      input_tokens: 10,
      input_tokens_details: null,
      output_tokens: 10,
      output_tokens_details: null,
      total_tokens: 20,
    },
  },
});

/** The events of an assistant message streamed as text deltas, then done. */
export function assistantMessageEvents(text: string): ResponsesEvent[] {
  const id = nextId('msg');
  const item = { type: 'message', role: 'assistant', id, content: [{ type: 'output_text', text }] };
  return [
    { type: 'response.output_item.added', output_index: 0, item: { ...item, content: [] } },
    { type: 'response.output_text.delta', output_index: 0, item_id: id, content_index: 0, delta: text },
    { type: 'response.output_item.done', output_index: 0, item },
  ];
}

/**
 * The events of one function call (a tool the host exposes), with its JSON arguments. A tool listed inside a
 * `namespace` tool (codex puts each MCP server's tools in one, e.g. `mcp__ralph`) is called by its name plus that
 * namespace.
 */
export function functionCallEvents(
  name: string,
  args: unknown,
  namespace?: string,
  callId = nextId('call'),
): ResponsesEvent[] {
  const item = {
    type: 'function_call',
    id: nextId('fc'),
    call_id: callId,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    arguments: JSON.stringify(args),
  };
  return [
    { type: 'response.output_item.added', output_index: 0, item },
    { type: 'response.output_item.done', output_index: 0, item },
  ];
}

/** A whole stream: created, the given items' events, completed. */
export function stream(...items: ResponsesEvent[][]): ScriptedReply {
  const id = nextId('resp');
  return { kind: 'stream', events: [responseCreated(id), ...items.flat(), responseCompleted(id)] };
}

/** The model answers with one assistant message. */
export const say = (text: string): ScriptedReply => stream(assistantMessageEvents(text));

/** The model calls one tool. */
export const call = (name: string, args: unknown, namespace?: string): ScriptedReply =>
  stream(functionCallEvents(name, args, namespace));

/** A script that plays the replies in order, and fails loudly (HTTP 599) past its end. */
export function inOrder(...replies: ScriptedReply[]): Script {
  return (_body, index) =>
    replies[index] ?? { kind: 'status', status: 599, message: `the script has no reply number ${index + 1}` };
}

const sseFrame = (event: ResponsesEvent): string =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * Starts an OpenAI Responses API server on 127.0.0.1 that answers each `POST /v1/responses` with what `script`
 * says, streaming server-sent events as the real API does. Every request is logged; anything else gets a 404.
 */
export async function startResponsesServer(script: Script): Promise<ResponsesServer> {
  const requests: LoggedRequest[] = [];
  const held = new Set<ServerResponse>();
  const waiters = callWaiters();
  let calls = 0;
  let serverPort = 0;

  const server = createServer(async (req, res) => {
    // Looked up before the body is read, while the client surely still holds its end.
    const pid = req.socket.remotePort === undefined ? undefined : peerPid(req.socket.remotePort, serverPort);
    const argv = processArgv(pid);
    const body = parseJson<ResponsesRequestBody>(await readBody(req));
    requests.push({ method: req.method ?? '', url: req.url ?? '', body, pid, argv });
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/responses' || body === undefined) {
      sendError(res, 404, `no such endpoint: ${req.method} ${req.url}`);
      return;
    }
    const index = calls++;
    waiters.arrived(calls);
    const reply = script(body, index);
    if (reply.kind === 'status') {
      sendError(res, reply.status, reply.message, 'server_error');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frames = reply.events.map(sseFrame).join('');
    if (reply.kind === 'stream') res.end(frames);
    // Destroyed once the events are flushed, so the client reads them, then the connection drops.
    else if (reply.kind === 'cut') res.write(frames, () => setImmediate(() => res.destroy()));
    else {
      res.write(frames);
      held.add(res);
      res.on('close', () => held.delete(res));
    }
  });

  const namespaces = callerNamespaces(server);
  const port = await listenOnLoopback(server);
  serverPort = port;

  const responsesCalls = (): ResponsesRequestBody[] =>
    requests
      .filter((r) => r.method === 'POST' && r.url.split('?')[0] === '/v1/responses' && r.body)
      .map((r) => r.body as ResponsesRequestBody);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    callerNamespaces: namespaces,
    responsesCalls,
    responsesCall: (index) => {
      const body = responsesCalls()[index];
      if (body === undefined) throw new Error(`the model server got no responses call number ${index + 1}`);
      return body;
    },
    waitForCalls: (count) => waiters.waitFor(count, calls),
    close: () => closeScriptedServer(server, held),
  };
}
