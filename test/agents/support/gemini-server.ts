import { createServer, type ServerResponse } from 'node:http';
import type { ChatReply } from './chat-server.js';
import { callerNamespaces } from './peer-pid.js';
import {
  callWaiters,
  closeScriptedServer,
  listenOnLoopback,
  parseJson,
  readBody,
  sendError,
} from './scripted-http.js';

/** A part of a Gemini API content. */
export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: unknown };
  [key: string]: unknown;
}

/** The parts of a `generateContent` request the tests read. */
export interface GeminiRequestBody {
  contents?: { role?: string; parts?: GeminiPart[] }[];
  tools?: {
    functionDeclarations?: { name: string; parametersJsonSchema?: unknown; parameters?: unknown }[];
  }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

/** One model request as the server got it: the model named in its path, and its body. */
export interface GeminiCall {
  model: string;
  /** Whether it asked for a stream (`:streamGenerateContent`). */
  stream: boolean;
  body: GeminiRequestBody;
}

/**
 * Decides the reply to the n-th (0-based) turn of the agent: a streamed request with tools. Gemini CLI's side
 * requests (a JSON-mode `generateContent` asking who speaks next, and the like) are answered by `sideReply`.
 */
export type GeminiScript = (body: GeminiRequestBody, index: number) => ChatReply;

/** The scripted Gemini API server: its base URL, every model request it got, and its shutdown. */
export interface GeminiServer {
  /** `http://127.0.0.1:PORT`, for GOOGLE_GEMINI_BASE_URL. */
  baseUrl: string;
  /** Every agent turn (streamed requests), in arrival order. */
  turns: GeminiCall[];
  /** Every other model request (side requests). */
  sideCalls: GeminiCall[];
  /** The PID namespace of the sender of every request (see callerNamespaces). */
  callerNamespaces: (string | undefined)[];
  /** Resolves when the n-th (1-based) agent turn has arrived. */
  waitForTurns(count: number): Promise<void>;
  close(): Promise<void>;
}

const USAGE = { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };

/** The candidate content of a reply. */
function contentOf(reply: Extract<ChatReply, { kind: 'message' | 'tools' }>) {
  const parts: GeminiPart[] =
    reply.kind === 'message'
      ? [{ text: reply.text }]
      : reply.calls.map((call) => ({ functionCall: { name: call.name, args: call.args } }));
  return { role: 'model', parts };
}

/** A whole response: one candidate, stopped, with usage. */
const responseOf = (reply: Extract<ChatReply, { kind: 'message' | 'tools' }>) => ({
  candidates: [{ content: contentOf(reply), finishReason: 'STOP', index: 0 }],
  usageMetadata: USAGE,
  modelVersion: 'scripted',
});

/**
 * The answer to a side request: JSON-mode requests (Gemini CLI asks whether the user speaks next) get a JSON object
 * that ends the turn, anything else a short text.
 */
function sideReply(body: GeminiRequestBody) {
  const json = body.generationConfig?.responseMimeType === 'application/json';
  const text = json ? JSON.stringify({ reasoning: 'the turn is over', next_speaker: 'user' }) : 'ok';
  return responseOf({ kind: 'message', text });
}

/**
 * Starts a Gemini API server on 127.0.0.1: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` is an agent
 * turn, answered with what `script` says as one server-sent event; `:generateContent` is a side request;
 * `:countTokens` counts 10. Anything else gets a 404.
 */
export async function startGeminiServer(script: GeminiScript): Promise<GeminiServer> {
  const turns: GeminiCall[] = [];
  const sideCalls: GeminiCall[] = [];
  const held = new Set<ServerResponse>();
  const waiters = callWaiters();

  const server = createServer(async (req, res) => {
    const body = parseJson<GeminiRequestBody>(await readBody(req));
    const path = (req.url ?? '').split('?')[0] ?? '';
    const match = /\/models\/([^/:]+):(\w+)$/.exec(path);
    if (req.method !== 'POST' || match === null || body === undefined) {
      sendError(res, 404, `no such endpoint: ${req.method} ${req.url}`);
      return;
    }
    const [, model = '', method] = match;
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    if (method === 'generateContent') {
      sideCalls.push({ model, stream: false, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(sideReply(body)));
      return;
    }
    if (method !== 'streamGenerateContent') {
      sendError(res, 404, `no such method: ${method}`);
      return;
    }
    const index = turns.length;
    turns.push({ model, stream: true, body });
    waiters.arrived(turns.length);
    const reply = script(body, index);
    if (reply.kind === 'status') {
      sendError(res, reply.status, reply.message);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (reply.kind === 'hold') {
      res.write(': held\n\n');
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    res.end(`data: ${JSON.stringify(responseOf(reply))}\n\n`);
  });

  const namespaces = callerNamespaces(server);
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    turns,
    sideCalls,
    callerNamespaces: namespaces,
    waitForTurns: (count) => waiters.waitFor(count, turns.length),
    close: () => closeScriptedServer(server, held),
  };
}
