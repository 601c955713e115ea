import type { Attributes } from '@opentelemetry/api';
import type { RalphUsage } from '../contract/usage.js';

/**
 * The attribute names of a run's spans: the OpenTelemetry GenAI semantic conventions where one applies (agent
 * invocation, token usage), the process conventions for a child process, and ralph's own under `ralph.`.
 */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  providerName: 'gen_ai.provider.name',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  errorType: 'error.type',
  pid: 'process.pid',
  exitCode: 'process.exit.code',
  commandArgs: 'process.command_args',
  runId: 'ralph.run.id',
  round: 'ralph.round',
  maxRounds: 'ralph.max_rounds',
  status: 'ralph.status',
  rounds: 'ralph.rounds',
  agentsStarted: 'ralph.agents_started',
  reportStatus: 'ralph.report.status',
  costUsd: 'ralph.cost.usd',
  turns: 'ralph.usage.turns',
  errorCode: 'ralph.error.code',
  exitSignal: 'ralph.exit.signal',
  verifyPassed: 'ralph.verify.passed',
  verifyTimedOut: 'ralph.verify.timed_out',
  evaluator: 'ralph.evaluator',
  evaluateVerdict: 'ralph.evaluate.verdict',
  evaluateFindings: 'ralph.evaluate.findings',
  evaluateEvidence: 'ralph.evaluate.evidence',
  evaluateChangedFiles: 'ralph.evaluate.changed_files',
  waitMs: 'ralph.limit.wait_ms',
  limitDetail: 'ralph.limit.detail',
} as const;

/** `SpanStatusCode.ERROR` and `SpanKind.INTERNAL` of the API, as their stable values (no runtime import of it). */
export const STATUS_ERROR = 2;
export const KIND_INTERNAL = 0;

/** The GenAI operation every agent invocation span names: ralph's run, and each round's child. */
export const INVOKE_AGENT = 'invoke_agent';

/**
 * The `gen_ai.provider.name` of the presets whose model vendor is fixed (the conventions' well-known values); the
 * others (a command, OpenCode, Copilot, Droid, Qwen) can run several vendors' models, so the attribute is left out.
 */
const VENDOR_OF_PROVIDER: Readonly<Record<string, string>> = {
  claude: 'anthropic',
  codex: 'openai',
  gemini: 'gcp.gemini',
};

/** The GenAI attributes of a child of the provider named `provider`. */
export function agentAttributes(provider: string): Attributes {
  const vendor = VENDOR_OF_PROVIDER[provider];
  return {
    [ATTR.operationName]: INVOKE_AGENT,
    [ATTR.agentName]: provider,
    ...(vendor === undefined ? {} : { [ATTR.providerName]: vendor }),
  };
}

/** What a usage says, as span attributes: only the fields it holds. */
export function usageAttributes(usage: RalphUsage | null | undefined): Attributes {
  if (usage === null || usage === undefined) return {};
  const out: Attributes = {};
  if (usage.inputTokens !== undefined) out[ATTR.inputTokens] = usage.inputTokens;
  if (usage.outputTokens !== undefined) out[ATTR.outputTokens] = usage.outputTokens;
  if (usage.cacheReadTokens !== undefined) out[ATTR.cacheReadTokens] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out[ATTR.cacheWriteTokens] = usage.cacheWriteTokens;
  if (usage.costUsd !== undefined) out[ATTR.costUsd] = usage.costUsd;
  if (usage.turns !== undefined) out[ATTR.turns] = usage.turns;
  return out;
}
