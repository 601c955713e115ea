import { createServer, type ServerResponse } from 'node:http';
import { callerNamespaces } from './peer-pid.js';
import {
  callWaiters,
  closeScriptedServer,
  listenOnLoopback,
  parseJson,
  readBody,
  sendError,
} from './scripted-http.js';

/** One tool call the scripted model makes. */
export interface ChatToolCall {
  name: string;
  args: unknown;
}

/** What the scripted model does with one `POST /v1/chat/completions`. */
export type ChatReply =
  /** An assistant message with this text. */
  | { kind: 'message'; text: string }
  /** One assistant turn that calls these tools. */
  | { kind: 'tools'; calls: ChatToolCall[] }
  /** An HTTP error status with a JSON error body. */
  | { kind: 'status'; status: number; message: string }
  /** A stream that starts and never ends (until the client goes away or the server closes). */
  | { kind: 'hold' };

/** A message of a chat completions request. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  [key: string]: unknown;
}

/** The parts of a chat completions request the tests read. */
export interface ChatRequestBody {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: { type: string; function?: { name: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

/** Decides the reply to the n-th (0-based) request the script is asked about, from its body. */
export type ChatScript = (body: ChatRequestBody, index: number) => ChatReply;

/** The scripted model server: its base URL, every request it got, and its shutdown. */
export interface ChatServer {
  /** `http://127.0.0.1:PORT/v1`, an OpenAI-compatible base URL. */
  baseUrl: string;
  /** Every chat completions request body, in arrival order. */
  calls: ChatRequestBody[];
  /** The Authorization header of each of those requests. */
  authorizations: (string | undefined)[];
  /** The PID namespace of the sender of every request (see callerNamespaces). */
  callerNamespaces: (string | undefined)[];
  /** Resolves when the n-th (1-based) chat completions request has arrived. */
  waitForCalls(count: number): Promise<void>;
  close(): Promise<void>;
}

/** The model answers with one assistant message. */
export const say = (text: string): ChatReply => ({ kind: 'message', text });

/** The model calls one tool. */
export const call = (name: string, args: unknown): ChatReply => ({ kind: 'tools', calls: [{ name, args }] });

/** A script that plays the replies in order, and fails loudly (HTTP 599) past its end. */
export function inOrder(...replies: ChatReply[]): (body: unknown, index: number) => ChatReply {
  return (_body, index) =>
    replies[index] ?? { kind: 'status', status: 599, message: `the script has no reply number ${index + 1}` };
}

/**
 * A script that counts only the agent's turns (requests that offer tools); a side request without tools (a session
 * title, a summary) is answered with a short text.
 */
export function agentTurns(script: ChatScript): ChatScript {
  let turn = 0;
  return (body) => ((body.tools ?? []).length > 0 ? script(body, turn++) : say('Ralph round'));
}

let sequence = 0;

const USAGE = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

/** The assistant message of a reply, as a whole (non-streamed) completion carries it. */
function messageOf(reply: Extract<ChatReply, { kind: 'message' | 'tools' }>) {
  if (reply.kind === 'message') return { role: 'assistant', content: reply.text };
  return {
    role: 'assistant',
    content: null,
    tool_calls: reply.calls.map((tool) => ({
      id: `call_${++sequence}`,
      type: 'function',
      function: { name: tool.name, arguments: JSON.stringify(tool.args) },
    })),
  };
}

/** The chunks of a streamed completion: the message in one delta, the finish reason, then the usage. */
function chunksOf(reply: Extract<ChatReply, { kind: 'message' | 'tools' }>, model: string): unknown[] {
  const id = `chatcmpl-${++sequence}`;
  const base = { id, object: 'chat.completion.chunk', created: 1, model };
  const message = messageOf(reply);
  const delta =
    reply.kind === 'message'
      ? { role: 'assistant', content: message.content }
      : {
          role: 'assistant',
          tool_calls: (message.tool_calls ?? []).map((tool, index) => ({ index, ...tool })),
        };
  return [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    {
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: reply.kind === 'message' ? 'stop' : 'tool_calls' }],
    },
    { ...base, choices: [], usage: USAGE },
  ];
}

/**
 * Starts an OpenAI chat completions server on 127.0.0.1 that answers each `POST .../chat/completions` with what
 * `script` says, streamed as server-sent chunks when the request asks for a stream, else as one completion.
 * `GET .../models` lists one model; anything else gets a 404.
 */
export async function startChatServer(script: ChatScript): Promise<ChatServer> {
  const calls: ChatRequestBody[] = [];
  const authorizations: (string | undefined)[] = [];
  const held = new Set<ServerResponse>();
  const waiters = callWaiters();

  const server = createServer(async (req, res) => {
    const body = parseJson<ChatRequestBody>(await readBody(req));
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions') || body === undefined) {
      sendError(res, 404, `no such endpoint: ${req.method} ${req.url}`);
      return;
    }
    const index = calls.length;
    calls.push(body);
    authorizations.push(req.headers.authorization);
    waiters.arrived(calls.length);
    const reply = script(body, index);
    if (reply.kind === 'status') {
      sendError(res, reply.status, reply.message, 'server_error');
      return;
    }
    const model = body.model ?? 'scripted';
    if (reply.kind === 'hold') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': held\n\n');
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    if (body.stream !== true) {
      const finish = reply.kind === 'message' ? 'stop' : 'tool_calls';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${++sequence}`,
          object: 'chat.completion',
          created: 1,
          model,
          choices: [{ index: 0, message: messageOf(reply), finish_reason: finish }],
          usage: USAGE,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frames = chunksOf(reply, model).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
    res.end(`${frames.join('')}data: [DONE]\n\n`);
  });

  const namespaces = callerNamespaces(server);
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    authorizations,
    callerNamespaces: namespaces,
    waitForCalls: (count) => waiters.waitFor(count, calls.length),
    close: () => closeScriptedServer(server, held),
  };
}
