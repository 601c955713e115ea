export {
  type AnswerDelivery,
  type AnswerInbox,
  createAnswerInbox,
  firstAnswer,
  notWaiting,
} from './actors/answer-inbox.js';
export { createChildRoundActors } from './actors/child-round.js';
export {
  createRalphEngine,
  type RalphEngine,
  type RalphEngineOptions,
  type RalphRun,
  type RalphRunRequest,
  type RalphStartOptions,
} from './actors/engine.js';
export { createGuardRailActors, type RalphJournal } from './actors/guard-rail-actors.js';
export type { BatchRollback } from './batch/rollback.js';
export {
  type BatchAgentOptions,
  type BatchOutcome,
  type BatchProgressEvent,
  type BatchRunCommon,
  type BatchTaskInput,
  type BatchTaskOutcome,
  type ResumeBatchOptions,
  type RunBatchOptions,
  resumeBatch,
  rollbackBatch,
  runBatch,
} from './batch/run-batch.js';
export * from './contract/evaluator-messages.js';
export { type EvaluatorPromptInput, renderEvaluatorPrompt } from './contract/evaluator-prompt.js';
export {
  type EvaluatorVerdict,
  reviewVerdict,
  type VerdictReview,
  verdictJsonSchema,
  verdictJsonSchemaCopy,
  verdictSchema,
} from './contract/evaluator-verdict.js';
export * from './contract/index.js';
export {
  BATCH_TASKS_MISSING,
  type BatchToolArgs,
  type BatchToolExec,
  batchArgsJsonSchema,
  batchResultText,
  createRalphBatchTool,
  MAX_BATCH_TASKS,
  RALPH_BATCH_TOOL,
  type RalphBatchTool,
  type RalphBatchToolOptions,
  tooManyBatchTasks,
} from './hosts/batch-tool.js';
export { envelopeJsonSchema, structuredResultJsonSchema } from './hosts/mcp/envelope-schema.js';
export {
  createRalphMcpServer,
  type RalphMcpServer,
  type RalphMcpServerOptions,
  ralphToolDefinition,
} from './hosts/mcp/server.js';
export * from './inspect/index.js';
export {
  type ChildStarted,
  type FingerprintRequest,
  KILL_MARGIN_MS,
  NO_GUARD_RAILS,
  type ProviderSnapshot,
  type RalphCallContext,
  type RalphContext,
  type RalphEvent,
  type RalphMachine,
  type RalphMachineInput,
  type RalphOutput,
  type RalphResumePoint,
  type RalphTag,
  type RoundRef,
  type RoundStopReason,
  ralphMachine,
  type VerifyRequest,
} from './machines/ralph.machine.js';
export * from './notify/index.js';
export {
  assertDepthAllowed,
  currentDepth,
  DEFAULT_DEPTH_LIMIT,
  RALPH_DEPTH_ENV,
} from './process/nesting-depth.js';
export { type ProgramProblem, ProgramUnavailableError, resolveProgram } from './process/program-check.js';
export {
  type CommandArgsContext,
  type CommandChildRun,
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandProviderOptions,
  commandProvider,
  DEFAULT_MAX_OUTPUT_BYTES,
  defaultReportReader,
  RALPH_ROLE_ENV,
  splitCommand,
} from './providers/command.js';
export {
  type ClaudeProviderOptions,
  type CodexProviderOptions,
  type CopilotProviderOptions,
  claudeProvider,
  codexProvider,
  copilotProvider,
  type DroidProviderOptions,
  droidProvider,
  exampleAgentProvider,
  exampleAgentScript,
  type GeminiProviderOptions,
  geminiProvider,
  type OpencodeProviderOptions,
  opencodeProvider,
  type QwenProviderOptions,
  qwenProvider,
  readClaudeResult,
  readQwenResult,
} from './providers/presets.js';
export { createProviderRegistry, type ProviderRegistry } from './providers/registry.js';
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedStep,
} from './providers/scripted.js';
export { type PendingCard, type ResultCard, renderPendingCard, renderResultCard } from './render/cards.js';
export { renderFullResultText, renderResultText, resultLabel, resultNote } from './render/result-text.js';
export { truncateText } from './render/truncate.js';
export {
  createRalphTool,
  type RalphExec,
  type RalphTool,
  type RalphToolArgs,
  type RalphToolDeps,
} from './run/tool.js';
export {
  createRunTracer,
  type RunOutcome,
  type RunTraceOptions,
  type RunTracer,
  type TraceApi,
  type TraceTools,
} from './trace/run-tracer.js';
