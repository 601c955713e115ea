import { type JSONSchema7, jsonSchema, type Tool, tool } from 'ai';
import type { AgentRef, RalphEnvelope } from '../contract/types.js';
import type { RalphExec, RalphTool, RalphToolArgs } from './tool.js';

/** What `ralphAiSdkTool` binds every call to. */
export interface RalphAiSdkToolOptions {
  /** The calling agent: the parent of every child; its cwd is the shared workspace. */
  agent: AgentRef;
  /** Called with each round's progress. */
  onProgress?: RalphExec['onProgress'];
}

/**
 * The ralph tool as an AI SDK `tool()`, for `generateText`/`streamText`/agents: register it under `ralph.name`.
 * The description is the fixed guidance and the input schema is the tool's own JSON Schema with no validator, so
 * the tool's checks answer a bad call with the seed's message rather than the SDK's. `execute` resolves with the
 * envelope (what the host's tool results hold); the model sees the native result text. A refusal, failure or
 * cancellation throws the RalphError: the SDK records a tool error (the RalphError, with its code, round and
 * last handoff, for the host) and shows the model its message, the seed's text, as the error result.
 */
export function ralphAiSdkTool(
  ralph: RalphTool,
  options: RalphAiSdkToolOptions,
): Tool<RalphToolArgs, RalphEnvelope> {
  // A fresh mutable copy: the SDK's schema type is not readonly, and the tool's own schema stays frozen.
  const inputSchema: JSONSchema7 = JSON.parse(JSON.stringify(ralph.jsonSchema));
  return tool<RalphToolArgs, RalphEnvelope>({
    description: ralph.description,
    inputSchema: jsonSchema<RalphToolArgs>(inputSchema),
    execute: (args, { abortSignal }) =>
      ralph.execute(args, {
        agent: options.agent,
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      }),
    toModelOutput: ({ input, output }) => ({ type: 'text', value: ralph.render.result(input, output).text }),
  });
}
