import type { RalphConfig } from '../../contract/config.js';
import { type AgentOptions, PRESET_PROGRAMS, type ProgramPreset } from '../../run/agent-options.js';
import type { EvaluatorOptions } from '../../run/evaluator-options.js';
import { type GuardRailOptions, guardRailConfig } from '../../run/guard-rail-options.js';
import type { SandboxOptions } from '../../run/sandbox-options.js';
import type { RalphBatchToolOptions } from '../batch-tool.js';

/** The flags of `ralph mcp` a batch takes: its agent, evaluator, guard rails and sandbox. */
type BatchFlags = AgentOptions & EvaluatorOptions & GuardRailOptions & SandboxOptions;

/**
 * What `ralph mcp --batch`'s `ralph_batch` runs every call with: the server's own agent, evaluator, verify command,
 * guard rails and sandbox, in the workspace `cwd`, with the ralph tool's checked config for the round ceiling, the
 * grace and the result bound. The flags were checked when the ralph tool was built from them.
 */
export function mcpBatchOptions(
  options: BatchFlags,
  config: RalphConfig,
  cwd: string,
): RalphBatchToolOptions {
  const rails = guardRailConfig(options);
  const agentPaths = Object.fromEntries(
    (Object.keys(PRESET_PROGRAMS) as ProgramPreset[])
      .map((name) => [name, options[PRESET_PROGRAMS[name].pathOption]] as const)
      .filter(([, path]) => path !== undefined),
  );
  const picked: RalphBatchToolOptions = {
    cwd,
    maxRounds: config.maxRounds,
    maxResultChars: config.maxResultChars,
    graceMs: config.terminationGraceMs,
    agent: options.agent,
    agentCommand: options.agentCommand,
    agentReportsCost: options.agentReportsCost,
    agentPaths,
    evaluator: options.evaluator,
    evaluatorCommand: options.evaluatorCommand,
    evaluatorReportsCost: options.evaluatorReportsCost,
    verify: options.verify,
    verifyTimeoutMs: rails.verify?.timeoutMs,
    roundTimeoutMs: rails.roundTimeoutMs,
    maxTimeMs: rails.maxWallTimeMs,
    maxCostUsd: rails.maxCostUsd,
    maxIdleRounds: rails.maxIdleRounds,
    waitOnLimits: rails.waitOnLimits,
    ...(options.sandbox === true
      ? {
          sandbox: {
            ...(options.sandboxNetwork === undefined ? {} : { network: options.sandboxNetwork }),
            ...(options.sandboxEnv === undefined ? {} : { env: options.sandboxEnv }),
            ...(options.sandboxHide === undefined ? {} : { hide: options.sandboxHide }),
          },
        }
      : {}),
  };
  // Absent, not undefined: the library tells an option given from one left out.
  return Object.fromEntries(
    Object.entries(picked).filter(([, value]) => value !== undefined),
  ) as RalphBatchToolOptions;
}
