import type { SubagentProvider } from '../contract/types.js';
import { freshAgentHome } from './agent-home.js';
import { claudeResultObject, readClaudeUsage, resultReportReader } from './claude.js';
import {
  type CommandOutputs,
  type CommandPresetOptions,
  type CommandSandboxNeeds,
  commandProvider,
  passThrough,
  presetMode,
} from './command.js';

/** Options of the Qwen Code preset. */
export interface QwenProviderOptions extends CommandPresetOptions {
  /**
   * Qwen Code's approval mode for the child; default 'auto-edit' (edits applied unasked, shell commands only as the
   * user's settings allow); 'plan' when `readOnly`, which takes no other. 'yolo' runs any command unasked: only for
   * sandboxed machines.
   */
  approvalMode?: string;
}

/**
 * The report inside Qwen Code's result: its `structured_result`, what the model gave its `structured_output` tool
 * (validated by qwen against the schema). The result object copies Claude Code's (subtype, is_error, usage).
 */
export const readQwenResult = resultReportReader('qwen', 'structured_result');

/**
 * What a failed qwen round said: its stderr, then the error its result carries (qwen exits 1 with an
 * `error_during_execution` result whose `error.message` says why, e.g. that the model answered in plain text
 * instead of calling structured_output), as `qwen reported <subtype>: <message>`.
 */
export function qwenFailureStderr({ stdout, stderr }: CommandOutputs): string {
  const result = claudeResultObject(stdout);
  const error = result?.error as { message?: unknown } | undefined;
  if (result?.is_error !== true || typeof error?.message !== 'string') return stderr;
  const line = `qwen reported ${typeof result.subtype === 'string' ? result.subtype : 'an error'}: ${error.message}`;
  return stderr.trim() === '' ? line : `${stderr.trimEnd()}\n${line}`;
}

/**
 * What ralph's sandbox binds in for it: Qwen Code's settings and credentials (`~/.qwen`, or the folder QWEN_HOME
 * names) and the variables of each auth type it reads a key, base URL and model from (qwen-code 0.15.10's
 * AUTH_ENV_MAPPINGS: `openai`, `anthropic`, `gemini`, `vertex-ai`); a provider of the user's settings whose `envKey`
 * is another name needs `--sandbox-env`.
 */
const QWEN_SANDBOX_NEEDS: CommandSandboxNeeds = {
  home: ['.qwen'],
  folderVars: ['QWEN_HOME'],
  env: [
    'OPENAI_*',
    'QWEN_*',
    'DASHSCOPE_*',
    'ANTHROPIC_*',
    'GEMINI_API_KEY',
    'GEMINI_MODEL',
    'GOOGLE_API_KEY',
    'GOOGLE_MODEL',
    'GOOGLE_GENAI_*',
    'GOOGLE_CLOUD_PROJECT',
    'GOOGLE_CLOUD_LOCATION',
  ],
};

/**
 * Qwen Code as a fresh child per round (verified with qwen-code 0.15.10). The argv, and why each flag is there:
 * - `-o stream-json`: one JSON event a line, the last one the result (`subtype`, `is_error`, `structured_result`,
 *   `usage`); unlike `-o json` (one array of the whole conversation), its end survives the bound on kept output.
 * - `--json-schema @<RALPH_SCHEMA_FILE>`: the report schema; the model answers through qwen's `structured_output`
 *   tool, which qwen validates against it, and the result carries it as `structured_result`.
 * - `--chat-recording false`: no conversation is saved, so nothing can be resumed: each round is fresh.
 * - `--approval-mode auto-edit`: edits in the workspace need nobody to approve them; `approvalMode` changes it.
 *   Read-only (`readOnly`, for an evaluator): `--approval-mode plan`, Qwen Code's plan-only mode, instead.
 * - the prompt on stdin (non-interactive: qwen reads a piped prompt and exits when the turn ends).
 * No `--auth-type`: authentication and model come from the user's own settings (~/.qwen/settings.json, ~/.qwen/.env)
 * or environment (OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL), as for qwen itself. QWEN_RUNTIME_DIR points
 * qwen's runtime output (logs, conversations, todos) at a fresh folder in the round's folder, so a round writes
 * nothing into ~/.qwen. RALPH_DEPTH guards recursion, should the child reach ralph through the user's MCP servers.
 * Usage is read off the result (tokens, turns, duration); qwen reports no cost.
 */
export function qwenProvider(options: QwenProviderOptions = {}): SubagentProvider {
  const approvalMode = presetMode(
    'qwen',
    'approvalMode',
    options.approvalMode,
    { editing: 'auto-edit', readOnly: 'plan' },
    options.readOnly,
  );
  return commandProvider({
    name: 'qwen',
    sandboxNeeds: QWEN_SANDBOX_NEEDS,
    command: [options.path ?? 'qwen'],
    ...passThrough(options),
    roundEnv: ({ reportFile }) => ({ QWEN_RUNTIME_DIR: freshAgentHome(reportFile, 'qwen-runtime') }),
    args: ({ schemaFile }) => [
      '-o',
      'stream-json',
      '--json-schema',
      `@${schemaFile}`,
      '--chat-recording',
      'false',
      '--approval-mode',
      approvalMode,
      ...(options.extraArgs ?? []),
    ],
    readReport: readQwenResult,
    readUsage: readClaudeUsage,
    failureStderr: qwenFailureStderr,
  });
}
