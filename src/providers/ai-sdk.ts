import {
  generateText,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  stepCountIs,
  ToolChoiceViolationError,
} from 'ai';
import { positiveSafeInteger } from '../contract/integers.js';
import type { ChildRequest, ChildRun, ChildStartOptions, SubagentProvider } from '../contract/types.js';
import { assertDepthAllowed, DEFAULT_DEPTH_LIMIT } from './depth.js';
import { workspaceRoot } from './workspace-path.js';
import { createWorkspaceTools } from './workspace-tools.js';

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

/**
 * The raw output of a final answer that was not valid JSON: nothing when it was empty (a missing report),
 * otherwise whatever it parses to, or the text itself, for the run to reject as malformed.
 */
function rawReportOf(text: string | undefined): unknown {
  if (text === undefined || text.trim().length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A provider whose children are fresh in-process agents on an AI SDK language model. Each round is one
 * `generateText` call that sees only the round prompt (no conversation, no parent history), works through
 * workspace tools confined to the calling agent's folder, and ends with a structured report requested with the
 * report's JSON Schema. The raw report is handed to the run as is: the run checks it, so a missing or malformed
 * answer fails the workflow as the seeds say. A model error rejects the report (an ordinary child failure);
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

  async function runRound(request: ChildRequest, root: string, start: ChildStartOptions): Promise<unknown> {
    const { signal } = start;
    const commands = new Set<Promise<unknown>>();
    const tools = createWorkspaceTools({
      root,
      commandTimeoutMs,
      killGraceMs: start.terminationGraceMs,
      maxOutputBytes,
      signal,
      track: (running) => {
        commands.add(running);
        running.then(
          () => commands.delete(running),
          () => commands.delete(running),
        );
      },
    });
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
      });
      if (signal.aborted) throw new Error('the round was aborted');
      return result.output;
    } catch (error) {
      if (signal.aborted) throw error;
      if (NoObjectGeneratedError.isInstance(error)) return rawReportOf(error.text);
      // Out of steps while still calling tools (on the last step the SDK refuses tool calls): no report.
      if (NoOutputGeneratedError.isInstance(error) || ToolChoiceViolationError.isInstance(error))
        return undefined;
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
      const report = runRound(request, root, start);
      // The run awaits the report later; until then its rejection is not an unhandled one.
      report.catch(() => {});
      return { id: `${name}-${request.runId}-r${request.round}`, report };
    },
  };
}
