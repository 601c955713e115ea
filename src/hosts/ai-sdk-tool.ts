import { type JSONSchema7, jsonSchema, type Tool, tool } from 'ai';
import { type AnswerInbox, createAnswerInbox, firstAnswer } from '../actors/answer-inbox.js';
import { RALPH_ANSWER_DESCRIPTION, RALPH_ANSWER_TOOL } from '../contract/answer-messages.js';
import type { AnswerSource } from '../contract/answers.js';
import { RalphError } from '../contract/errors.js';
import type { AgentRef, RalphEnvelope } from '../contract/types.js';
import type { RalphExec, RalphTool, RalphToolArgs } from '../run/tool.js';
import { type AnswerToolArgs, answerArgsJsonSchema, answerThroughInbox } from './answer-tool.js';

/** What `ralphAiSdkTool` binds every call to. */
export interface RalphAiSdkToolOptions {
  /** The calling agent: the parent of every child; its cwd is the shared workspace. */
  agent: AgentRef;
  /** Called with each round's progress. */
  onProgress?: RalphExec['onProgress'];
  /**
   * Where a run that asks (`waitForAnswersMs` in the tool's config) takes a person's answer from: an inbox's source
   * (see `ralphAiSdkTools`, which passes its own), or any other. Absent: nobody can answer, and the wait runs out.
   */
  answers?: AnswerSource;
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
        ...(options.answers === undefined ? {} : { answers: options.answers }),
      }),
    toModelOutput: ({ input, output }) => ({ type: 'text', value: ralph.render.result(input, output).text }),
  });
}

/** What `ralphAnswerTool` binds its calls to besides the inbox. */
export interface RalphAnswerToolOptions {
  /** Who answered, as the run's progress and recording say it (default `ai-sdk`). */
  by?: string;
}

/**
 * The `ralph_answer` tool as an AI SDK `tool()`: gives the run that waits in `inbox` its answer (`{ runId, answer }`)
 * or ends it blocked (`{ runId, giveUp: true }`), and resolves with what happened. A call that cannot be taken (no
 * such waiting run, an empty or too long answer, neither or both of answer and giveUp) throws a `refused`
 * RalphError: the model sees its message as the error result. The input schema has no validator, as ralph's.
 */
export function ralphAnswerTool(
  inbox: AnswerInbox,
  options: RalphAnswerToolOptions = {},
): Tool<AnswerToolArgs, string> {
  const inputSchema: JSONSchema7 = JSON.parse(JSON.stringify(answerArgsJsonSchema));
  return tool<AnswerToolArgs, string>({
    description: RALPH_ANSWER_DESCRIPTION,
    inputSchema: jsonSchema<AnswerToolArgs>(inputSchema),
    execute: async (args) => {
      const { text, refused } = answerThroughInbox(inbox, args, options.by ?? 'ai-sdk');
      if (refused) throw new RalphError({ code: 'refused', message: text });
      return text;
    },
  });
}

/** What `ralphAiSdkTools` builds: the tools to register, and the inbox the answer tool and the host share. */
export interface RalphAiSdkTools {
  /** `{ ralph }`, and `ralph_answer` beside it when the tool's config asks (`waitForAnswersMs`). */
  tools: { ralph: Tool<RalphToolArgs, RalphEnvelope>; [RALPH_ANSWER_TOOL]?: Tool<AnswerToolArgs, string> };
  /** The inbox every run of these tools waits in (the host may answer through it too); absent when none asks. */
  inbox?: AnswerInbox;
}

/**
 * The ralph tool and, when its config asks, the `ralph_answer` tool beside it, sharing one inbox: a run that blocks
 * waits there, its `question-asked` progress event says so, and an answer through the tool (in this or another
 * generation: a step's tool calls all settle before the model speaks again, so a model cannot answer the call it
 * waits on) or through `inbox.answer` starts its next round. Without `waitForAnswersMs` it is `{ ralph }` alone.
 */
export function ralphAiSdkTools(
  ralph: RalphTool,
  options: RalphAiSdkToolOptions & RalphAnswerToolOptions & { inbox?: AnswerInbox },
): RalphAiSdkTools {
  if (ralph.config.waitForAnswersMs === undefined)
    return { tools: { ralph: ralphAiSdkTool(ralph, options) } };
  const inbox = options.inbox ?? createAnswerInbox();
  // Another source the host passes (a terminal, a page) is raced with the inbox: the first answer wins.
  const answers = options.answers === undefined ? inbox.source : firstAnswer([inbox.source, options.answers]);
  return {
    tools: {
      ralph: ralphAiSdkTool(ralph, { ...options, answers }),
      [RALPH_ANSWER_TOOL]: ralphAnswerTool(inbox, options),
    },
    inbox,
  };
}
