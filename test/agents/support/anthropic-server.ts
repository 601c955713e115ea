import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { callerNamespaces, peerPid, processArgv } from './peer-pid.js';

/** A content block of an Anthropic Messages request, loosely typed: tests read what they need. */
export interface MessageBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

/** One message of a Messages request. */
export interface RequestMessage {
  role: string;
  content: string | MessageBlock[];
}

/** A tool as the client declares it in a Messages request. */
export interface RequestTool {
  name: string;
  description?: string;
  input_schema?: unknown;
}

/** The body of a `POST /v1/messages` request, as far as the tests read it. */
export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages: RequestMessage[];
  tools?: RequestTool[];
}

/** Every request the server received, in order. */
export interface LoggedRequest {
  method: string;
  url: string;
  body: unknown;
  /** The remote port of the connection, to tell one client process's connections from another's. */
  remotePort: number | undefined;
  /** The pid of the process that sent it (through /proc), when it could be told. */
  pid: number | undefined;
  /** That process's argv (read through /proc while it still held the connection), when it could be told. */
  argv: string[] | undefined;
  /** Which scripted turn answered it, or undefined when the fallback did. */
  turn: number | undefined;
}

/** What a scripted turn answers with. */
export type Reply =
  /** An assistant message with one text block, stop_reason end_turn. */
  | { text: string }
  /** An assistant message calling one tool (input streamed as input_json_delta), stop_reason tool_use. */
  | { toolUse: { name: string; input: unknown }; text?: string }
  /** A plain HTTP error with an Anthropic error body. */
  | { status: number; message?: string }
  /** Starts the stream (message_start and a partial text block) and then destroys the connection. */
  | { cutMidStream: true }
  /** Starts the stream and keeps it open until the client goes away. */
  | { hold: true };

/** A scripted turn: the first unused turn whose `when` holds answers the request. */
export interface Turn {
  /** Which main-loop request this turn answers. */
  when: (request: MessagesRequest) => boolean;
  reply: Reply;
  /** Answers every matching request, not just the first. */
  repeat?: boolean;
}

/** A scripted Anthropic Messages API server on 127.0.0.1. */
export interface AnthropicServer {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request so far. */
  requests: LoggedRequest[];
  /** The `/v1/messages` requests a scripted turn answered, in order. */
  turnRequests(): MessagesRequest[];
  /** Scripted turns not answered yet (a repeating turn counts once it answered once). */
  pendingTurns(): number;
  /** Requests to /v1/messages that no turn matched while every turn was used or none matched. */
  unmatched: MessagesRequest[];
  /** The PID namespace of the sender of every request (see callerNamespaces). */
  callerNamespaces: (string | undefined)[];
  /** Resolves with the first request a `hold` turn holds open, once it has arrived. */
  held: Promise<LoggedRequest>;
  close(): Promise<void>;
}

/** True when the request declares a tool of this name. */
export const hasTool = (request: MessagesRequest, name: string): boolean =>
  (request.tools ?? []).some((tool) => tool.name === name);

/** The last message of a request. */
export const lastMessage = (request: MessagesRequest): RequestMessage | undefined => request.messages.at(-1);

/** The blocks of a message, a string content counting as one text block. */
export const blocksOf = (message: RequestMessage | undefined): MessageBlock[] =>
  message === undefined
    ? []
    : typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content;

/** The tool_result blocks of the request's last message. */
export const toolResults = (request: MessagesRequest): MessageBlock[] =>
  blocksOf(lastMessage(request)).filter((block) => block.type === 'tool_result');

/**
 * True when the request opens a conversation: no assistant message yet. (Claude Code 2.1 sends the prompt as a
 * user message followed by a `system` role message of environment context, so the count of messages says little.)
 */
export const isFirstTurn = (request: MessagesRequest): boolean =>
  !request.messages.some((message) => message.role === 'assistant');

/** All the text of a message's blocks (tool results included), for matching on content. */
export const messageText = (message: RequestMessage | undefined): string =>
  blocksOf(message)
    .map((block) => {
      if (typeof block.text === 'string') return block.text;
      if (typeof block.content === 'string') return block.content;
      if (Array.isArray(block.content)) return JSON.stringify(block.content);
      return '';
    })
    .join('\n');

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let nextId = 0;
const id = (prefix: string) => `${prefix}_${process.pid}_${++nextId}`;

const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function sse(response: ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function startStream(response: ServerResponse, model: string): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  sse(response, 'message_start', {
    type: 'message_start',
    message: {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
}

function streamText(response: ServerResponse, index: number, text: string): void {
  sse(response, 'content_block_start', {
    type: 'content_block_start',
    index,
    content_block: { type: 'text', text: '' },
  });
  sse(response, 'content_block_delta', {
    type: 'content_block_delta',
    index,
    delta: { type: 'text_delta', text },
  });
  sse(response, 'content_block_stop', { type: 'content_block_stop', index });
}

function streamToolUse(response: ServerResponse, index: number, name: string, input: unknown): void {
  sse(response, 'content_block_start', {
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id: id('toolu'), name, input: {} },
  });
  const json = JSON.stringify(input);
  // Two deltas, so the client really assembles partial JSON.
  const half = Math.floor(json.length / 2);
  for (const partial_json of [json.slice(0, half), json.slice(half)]) {
    sse(response, 'content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json },
    });
  }
  sse(response, 'content_block_stop', { type: 'content_block_stop', index });
}

function endStream(response: ServerResponse, stopReason: string): void {
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

/** A non-streaming assistant message (for clients that do not ask for a stream). */
function plainMessage(model: string, content: unknown[], stopReason: string) {
  return {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

function sendReply(
  response: ServerResponse,
  request: MessagesRequest,
  reply: Reply,
  onHold: () => void,
): void {
  const model = request.model ?? 'claude-scripted';
  if ('status' in reply) {
    response.writeHead(reply.status, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: reply.message ?? 'scripted failure' },
      }),
    );
    return;
  }
  if ('cutMidStream' in reply) {
    startStream(response, model);
    sse(response, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    sse(response, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'I will start by' },
    });
    // Let the written events reach the client before the connection dies.
    setImmediate(() => response.socket?.destroy());
    return;
  }
  if ('hold' in reply) {
    startStream(response, model);
    onHold();
    return;
  }
  if (!request.stream) {
    const content =
      'toolUse' in reply
        ? [
            ...(reply.text ? [{ type: 'text', text: reply.text }] : []),
            { type: 'tool_use', id: id('toolu'), name: reply.toolUse.name, input: reply.toolUse.input },
          ]
        : [{ type: 'text', text: reply.text }];
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(plainMessage(model, content, 'toolUse' in reply ? 'tool_use' : 'end_turn')));
    return;
  }
  startStream(response, model);
  if ('toolUse' in reply) {
    let index = 0;
    if (reply.text) streamText(response, index++, reply.text);
    streamToolUse(response, index, reply.toolUse.name, reply.toolUse.input);
    endStream(response, 'tool_use');
  } else {
    streamText(response, 0, reply.text);
    endStream(response, 'end_turn');
  }
}

/**
 * Starts the scripted server. Requests to `/v1/messages` are answered by the first unused turn whose `when` holds;
 * anything else Claude Code asks on the side (token counts, a title from a small model, any other path) gets a
 * sensible answer from the fallback, and every request is logged.
 */
export async function startAnthropicServer(turns: Turn[]): Promise<AnthropicServer> {
  const used = new Set<number>();
  const requests: LoggedRequest[] = [];
  const unmatched: MessagesRequest[] = [];
  const sockets = new Set<Socket>();
  let resolveHeld: (request: LoggedRequest) => void = () => {};
  const held = new Promise<LoggedRequest>((resolve) => {
    resolveHeld = resolve;
  });

  let serverPort = 0;
  const server = createServer(async (request, response) => {
    // Looked up before the body is read, while the client surely still holds its end.
    const pid =
      request.socket.remotePort === undefined ? undefined : peerPid(request.socket.remotePort, serverPort);
    const argv = processArgv(pid);
    const raw = await readBody(request);
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const url = request.url ?? '/';
    const logged: LoggedRequest = {
      method: request.method ?? 'GET',
      url,
      body,
      remotePort: request.socket.remotePort,
      pid,
      argv,
      turn: undefined,
    };
    requests.push(logged);
    const path = url.split('?')[0];
    if (request.method === 'POST' && path === '/v1/messages/count_tokens') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    if (request.method === 'POST' && path === '/v1/messages') {
      const messages = body as MessagesRequest;
      const index = turns.findIndex((turn, i) => (turn.repeat || !used.has(i)) && turn.when(messages));
      if (index >= 0) {
        used.add(index);
        logged.turn = index;
        sendReply(response, messages, turns[index]!.reply, () => resolveHeld(logged));
        return;
      }
      unmatched.push(messages);
      sendReply(response, messages, { text: 'ok' }, () => resolveHeld(logged));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
  const namespaces = callerNamespaces(server);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serverPort = port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    callerNamespaces: namespaces,
    unmatched,
    held,
    turnRequests: () =>
      requests
        .filter((logged) => logged.turn !== undefined)
        .sort((a, b) => requests.indexOf(a) - requests.indexOf(b))
        .map((logged) => logged.body as MessagesRequest),
    pendingTurns: () => turns.length - used.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
