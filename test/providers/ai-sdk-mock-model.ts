import { MockLanguageModelV3 } from 'ai/test';

/** What the AI SDK passes to a model call. */
export type ModelCall = Parameters<MockLanguageModelV3['doGenerate']>[0];
/** What a model call returns. */
export type ModelResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
/** One scripted model turn: a fixed result, or one computed from the call (its prompt, tools, signal). */
export type ModelTurn = ModelResult | ((call: ModelCall) => ModelResult | Promise<ModelResult>);

const usage: ModelResult['usage'] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model turn that calls tools. */
export function callTools(...calls: { toolName: string; input: unknown }[]): ModelResult {
  return {
    content: calls.map((call, i) => ({
      type: 'tool-call' as const,
      toolCallId: `call-${i + 1}`,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage,
    warnings: [],
  };
}

/** A model turn that answers with text (the final report, as JSON text, in structured-output mode). */
export function answer(text: string): ModelResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: undefined },
    usage,
    warnings: [],
  };
}

/** A model turn that answers with a report object as JSON. */
export function report(value: unknown): ModelResult {
  return answer(JSON.stringify(value));
}

/** A turn that never answers: it waits for the call's abort signal and then fails the way a real model call does. */
export const waitForAbort: ModelTurn = (call) =>
  new Promise<ModelResult>((_, reject) => {
    const fail = () => reject(call.abortSignal?.reason ?? new Error('aborted'));
    if (call.abortSignal?.aborted) fail();
    else call.abortSignal?.addEventListener('abort', fail, { once: true });
  });

/** A mock AI SDK language model that plays `turns` in order across every call it gets (all rounds included). */
export function scriptedModel(turns: ModelTurn[]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doGenerate: async (call) => {
      const turn = turns[next];
      next += 1;
      if (turn === undefined) throw new Error(`the mock model has no turn ${next} scripted`);
      return typeof turn === 'function' ? turn(call) : turn;
    },
  });
}

/** The tool results the model is shown in a call's prompt, in order. */
export function toolResultsIn(
  call: ModelCall,
): { toolName: string; output: { type: string; value?: unknown } }[] {
  return call.prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result' ? [{ toolName: part.toolName, output: part.output }] : [],
        )
      : [],
  );
}

/** The text of a call's user messages. */
export function userTextsIn(call: ModelCall): string[] {
  return call.prompt.flatMap((message) =>
    message.role === 'user'
      ? message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []))
      : [],
  );
}
