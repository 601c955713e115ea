/**
 * `ralph-machine/ai-sdk`: the pieces that need the AI SDK (`ai`, an optional peer dependency). Kept out of the
 * package root so that hosts without the AI SDK never load it.
 */
export { type RalphBatchAiSdkToolOptions, ralphBatchAiSdkTool } from './hosts/ai-sdk-batch-tool.js';
export {
  type RalphAiSdkToolOptions,
  type RalphAiSdkTools,
  type RalphAnswerToolOptions,
  ralphAiSdkTool,
  ralphAiSdkTools,
  ralphAnswerTool,
} from './hosts/ai-sdk-tool.js';
export {
  AI_SDK_CHILD_SYSTEM,
  type AiSdkProviderOptions,
  aiSdkProvider,
} from './providers/ai-sdk-provider.js';
