import {
  APICallError,
  generateText,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  RetryError,
  stepCountIs,
  ToolChoiceViolationError,
} from 'ai';
import { errorText } from '../contract/error-text.js';
import { positiveSafeInteger } from '../contract/integers.js';
import type { ChildRequest, ChildRun, ChildStartOptions, SubagentProvider } from '../contract/types.js';
import { unreadableReport } from '../contract/unreadable-round-report.js';
import { type RalphUsage, usageOf } from '../contract/usage.js';
import { assertDepthAllowed, DEFAULT_DEPTH_LIMIT } from '../process/nesting-depth.js';
import { workspaceRoot } from '../workspace/workspace-path.js';
import { createWorkspaceTools } from '../workspace/workspace-tools.js';
import { retryAfterOf, type UsageLimit, UsageLimitError } from './usage-limit.js';

/** Options of `aiSdkProvider`. */
export interface AiSdkProviderOptions {
  /** Any AI SDK language model (a provider's model, a gateway id, or `MockLanguageModelV3` in tests). */
  model: LanguageModel;
  /** The provider's registry name (default `ai-sdk`). */
  name?: string;
  /** Model calls one round may make, tool steps and the final report included (default 50). */
  maxSteps?: number;
  /** Wall-clock limit of one workspace command (default 120 000 ms). */
  commandTimeoutMs?: number;
  /** The child's system prompt: fixed by the deployment, the same every round (default AI_SDK_CHILD_SYSTEM). */
  system?: string;
  /** Bytes of a file, a listing or each command stream handed back to the model (default 65 536). */
  maxToolOutputBytes?: number;
  /** Recursion guard: `start` refuses when this process already runs at this Ralph depth; default 3. */
  depthLimit?: number;
  /** Retries of a failed model call, the AI SDK's own (default: the SDK's, 2); a 429 after them is a usage limit. */
  maxRetries?: number;
  /** The environment whose RALPH_DEPTH the depth guard reads; default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
}

/**
 * The default system prompt of an in-process child: how its tools and its report work, nothing about the run.
 * The round prompt itself carries the objective, the round, the workspace rule and the previous handoff.
 */
export const AI_SDK_CHILD_SYSTEM = [
  'You are a fresh child agent working one round of a Ralph loop.',
  'Your tools act on the shared workspace: read_file, write_file and list_files take paths relative to it,',
  'and run_command runs a program there (an argv array, no shell).',
  'When the round is done, stop calling tools and answer with the round report alone:',
  'one JSON object that matches the response schema, with no other text.',
].join('\n');

const DEFAULT_MAX_STEPS = 50;
const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_TOOL_OUTPUT_BYTES = 65_536;

/** ` (finish reason: length)` when the model stopped for another reason than having said all it meant to. */
const finishNote = (finishReason: string | undefined): string =>
  finishReason === undefined || finishReason === 'stop' ? '' : ` (finish reason: ${finishReason})`;

/**
 * What a final answer the SDK could not parse gives the run: a missing report when it was empty, a malformed one
 * naming the parse error when it is not JSON, and otherwise the parsed value as it is, for the run's checks to name
 * what is wrong with it.
 */
function reportFromUnparsedAnswer(text: string | undefined, finishReason: string | undefined): unknown {
  if (text === undefined || text.trim().length === 0)
    return unreadableReport('missing', `the final answer was empty${finishNote(finishReason)}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    return unreadableReport(
      'malformed',
      `the final answer is not JSON: ${errorText(error)}${finishNote(finishReason)}`,
    );
  }
}

/**
 * A model call refused with status 429 (the SDK's own retries included: the last of them), as a usage limit that
 * resets when its `retry-after` header says; null for any other error.
 */
function rateLimitOf(error: unknown): UsageLimit | null {
  const call = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(call) || call.statusCode !== 429) return null;
  const headers = call.responseHeaders ?? {};
  const retryAfter = Object.entries(headers).find(([key]) => key.toLowerCase() === 'retry-after')?.[1];
  return { said: `status 429: ${call.message}`, resetsAt: retryAfterOf(retryAfter) };
}

/** What a round's model calls used, all steps summed, as the SDK counts it (tokens and steps; no cost). */
function usageOfSteps(usage: LanguageModelUsage, steps: number): RalphUsage | null {
  return usageOf({
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.inputTokenDetails?.cacheReadTokens,
    cacheWriteTokens: usage.inputTokenDetails?.cacheWriteTokens,
    turns: steps,
  });
}

/**
 * A provider whose children are fresh in-process agents on an AI SDK language model. Each round is one
 * `generateText` call that sees only the round prompt (no conversation, no parent history), works through
 * workspace tools confined to the calling agent's folder, and ends with a structured report requested with the
 * report's JSON Schema. The raw report is handed to the run as is: the run checks it, so a missing or malformed
 * answer fails the workflow as the seeds say. An answer that is empty or not JSON, or none at all (out of steps),
 * is an `unreadableReport` whose problem keeps the SDK's error text and says why. A model error rejects the report (an ordinary child failure);
 * a tool error goes back to the model, which may recover from it. Like `commandProvider`, it refuses to start a child
 * when this process already runs at the Ralph depth limit. Aborting stops the model call and any command
 * it runs, and the report settles only once both have stopped.
 */
export function aiSdkProvider(options: AiSdkProviderOptions): SubagentProvider {
  const name = options.name ?? 'ai-sdk';
  const maxSteps = positiveSafeInteger(options.maxSteps ?? DEFAULT_MAX_STEPS, 'maxSteps');
  const commandTimeoutMs = positiveSafeInteger(
    options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    'commandTimeoutMs',
  );
  const maxOutputBytes = positiveSafeInteger(
    options.maxToolOutputBytes ?? DEFAULT_MAX_TOOL_OUTPUT_BYTES,
    'maxToolOutputBytes',
  );
  const depthLimit = positiveSafeInteger(options.depthLimit ?? DEFAULT_DEPTH_LIMIT, 'depthLimit');
  const baseEnv = options.baseEnv ?? process.env;
  const system = options.system ?? AI_SDK_CHILD_SYSTEM;

  async function runRound(
    request: ChildRequest,
    root: string,
    start: ChildStartOptions,
    said: (usage: RalphUsage | null) => void,
  ): Promise<unknown> {
    const { signal } = start;
    const commands = new Set<Promise<unknown>>();
    const tools = createWorkspaceTools({
      root,
      commandTimeoutMs,
      killGraceMs: start.terminationGraceMs,
      maxOutputBytes,
      signal,
      baseEnv,
      track: (running) => {
        commands.add(running);
        running.then(
          () => commands.delete(running),
          () => commands.delete(running),
        );
      },
    });
    /** The steps the model has finished, and how the last one ended: why a round that has no answer has none. */
    let stepsDone = 0;
    let lastFinish: string | undefined;
    try {
      const result = await generateText({
        model: options.model,
        system,
        prompt: request.prompt,
        tools,
        // The last allowed step may not call tools, so a long round still ends with its report.
        stopWhen: stepCountIs(maxSteps),
        prepareStep: ({ stepNumber }) => (stepNumber >= maxSteps - 1 ? { toolChoice: 'none' } : undefined),
        output: Output.object({
          // No validator: the raw output goes to the run, whose checks name the problem in the seed's words.
          schema: jsonSchema(request.outputSchema as JSONSchema7),
          name: 'ralph_report',
          description: 'The structured report that ends this Ralph round.',
        }),
        abortSignal: signal,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        onStepFinish: (step) => {
          stepsDone += 1;
          lastFinish = step.finishReason;
        },
      });
      if (signal.aborted) throw new Error('the round was aborted');
      said(usageOfSteps(result.totalUsage, result.steps.length));
      return result.output;
    } catch (error) {
      if (signal.aborted) throw error;
      if (NoObjectGeneratedError.isInstance(error))
        return reportFromUnparsedAnswer(error.text, error.finishReason);
      // Tools are off on the last allowed step, so a tool call there means the round ran out of steps.
      if (ToolChoiceViolationError.isInstance(error)) {
        return unreadableReport(
          'missing',
          `the round ran out of steps (maxSteps ${maxSteps}): the model still called a tool at its last step, where tools are off (${error.message})`,
        );
      }
      if (NoOutputGeneratedError.isInstance(error)) {
        const ended =
          stepsDone >= maxSteps && lastFinish === 'tool-calls'
            ? `the round ran out of steps (maxSteps ${maxSteps}) with the model still calling tools`
            : `the model ended step ${stepsDone} of ${maxSteps} with no final answer${finishNote(lastFinish)}`;
        return unreadableReport('missing', `${ended}: ${error.message}`);
      }
      const limit = rateLimitOf(error);
      if (limit !== null) throw new UsageLimitError(name, limit);
      throw error;
    } finally {
      await Promise.allSettled([...commands]);
    }
  }

  return {
    name,
    capabilities: { structuredOutput: true, inheritsParentContext: false },
    async start(request: ChildRequest, start: ChildStartOptions): Promise<ChildRun> {
      // A model's tools can run `ralph`, so an in-process child counts as one Ralph level, as a command child does.
      assertDepthAllowed(depthLimit, baseEnv);
      const root = await workspaceRoot(request.cwd);
      let usage: RalphUsage | null = null;
      const report = runRound(request, root, start, (used) => {
        usage = used;
      });
      // The run awaits the report later; until then its rejection is not an unhandled one.
      report.catch(() => {});
      return { id: `${name}-${request.runId}-r${request.round}`, report, usage: () => usage };
    },
  };
}
