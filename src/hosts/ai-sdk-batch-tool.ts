import { type JSONSchema7, jsonSchema, type Tool, tool } from 'ai';
import type { BatchOutcome } from '../batch/run-batch.js';
import {
  type BatchToolArgs,
  type BatchToolExec,
  createRalphBatchTool,
  type RalphBatchToolOptions,
} from './batch-tool.js';

/** What `ralphBatchAiSdkTool` runs every call with: the app's agent, verify command and limits, and its listener. */
export interface RalphBatchAiSdkToolOptions extends RalphBatchToolOptions {
  /** Called with each task's status change and each progress line of a call's batch. */
  onProgress?: BatchToolExec['onProgress'];
}

/**
 * The `ralph_batch` tool as an AI SDK `tool()` (register it under `ralph_batch`): a model sends tasks
 * (`{ id, objective, after?, maxRounds? }`, at most MAX_BATCH_TASKS) and optionally `parallel`; the agent, verify
 * command and guard rails are the app's, given here. The input schema has no validator, so the tool's checks answer
 * a bad call with the ralph tool's messages: a refusal throws a `refused` RalphError and starts nothing. `execute`
 * resolves with the batch's outcome once every child stopped (the SDK's abort signal cancels it); the model sees the
 * native result text, each task's end.
 */
export function ralphBatchAiSdkTool(options: RalphBatchAiSdkToolOptions): Tool<BatchToolArgs, BatchOutcome> {
  const { onProgress, ...deployment } = options;
  const batch = createRalphBatchTool(deployment);
  const inputSchema: JSONSchema7 = JSON.parse(JSON.stringify(batch.jsonSchema));
  return tool<BatchToolArgs, BatchOutcome>({
    description: batch.description,
    inputSchema: jsonSchema<BatchToolArgs>(inputSchema),
    execute: (args, { abortSignal }) =>
      batch.execute(args, {
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        ...(onProgress === undefined ? {} : { onProgress }),
      }),
    toModelOutput: ({ output }) => ({ type: 'text', value: batch.resultText(output) }),
  });
}
