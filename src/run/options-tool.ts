import { resolve } from 'node:path';
import { RalphError } from '../contract/errors.js';
import type { AgentRef, SubagentProvider } from '../contract/types.js';
import { killLiveGroups } from '../process/live-groups.js';
import { ProgramUnavailableError } from '../process/program-check.js';
import { assertSandboxAvailable } from '../process/sandbox-check.js';
import { commandProvider } from '../providers/command.js';
import { createProviderRegistry } from '../providers/registry.js';
import { isDirectory } from '../workspace/directory.js';
import type { AgentOptions } from './agent-options.js';
import { AGENT_CONFLICT, AGENT_MISSING, agentUnavailable, workspaceNotADirectory } from './agent-texts.js';
import { type AskOptions, askConfig } from './ask-options.js';
import { type EvaluatorOptions, evaluatorFor } from './evaluator-options.js';
import { configHint, withHint } from './flag-hints.js';
import { type GuardRailOptions, guardRailConfig } from './guard-rail-options.js';
import { parseNumberOption } from './numbers.js';
import { presetProvider } from './preset-provider.js';
import { type SandboxOptions, sandboxConfig } from './sandbox-options.js';
import { createRalphTool, type RalphTool } from './tool.js';

/** The tool a set of agent options serves, the calling agent it answers for, and a way to kill its children outright. */
export interface OptionsTool {
  tool: RalphTool;
  agent: AgentRef;
  /** SIGKILLs every running child and its process group: the forced exit of a second interrupt. */
  killChildren(): void;
  /**
   * Refuses (a `refused` RalphError naming the flag that fixes it) when the agent's program cannot be started, or
   * when the run asks for a sandbox where bubblewrap cannot run.
   */
  preflight(): Promise<void>;
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** The provider the agent options name; refused when they name none, or two. */
export function providerFor(options: AgentOptions): SubagentProvider {
  if (options.agent !== undefined && options.agentCommand !== undefined) throw refuse(AGENT_CONFLICT);
  if (options.agentCommand !== undefined)
    return commandProvider({
      command: options.agentCommand,
      ...(options.agentReportsCost === true ? { reportsCost: true } : {}),
    });
  if (options.agent === undefined) throw refuse(AGENT_MISSING);
  return presetProvider(options.agent, options);
}

/** The workspace folder: `--cwd` resolved against the current directory, or the current directory. */
export function workspaceFor(options: AgentOptions): string {
  const dir = resolve(options.cwd ?? '.');
  if (!isDirectory(dir)) throw refuse(workspaceNotADirectory(options.cwd ?? dir));
  return dir;
}

/**
 * Checks before round 1 that the provider can start its agent in the workspace; a program that is missing or cannot
 * be run is refused with one line that says what to do, and no child is started.
 */
export function assertAgentStartable(provider: SubagentProvider, options: AgentOptions, cwd: string): void {
  try {
    provider.preflight?.(cwd);
  } catch (error) {
    if (error instanceof ProgramUnavailableError) throw refuse(agentUnavailable(options, error.problem));
    throw error;
  }
}

/**
 * Builds what a command (or a batch's loop) hosts from its agent options: a registry holding the one provider the options name, and the tool over it,
 * created through `createRalphTool` so every rule and message is the tool's own. `deploymentMaxRounds` is the
 * config's default and ceiling (only `ralph mcp` sets it; `ralph run` passes its cap as the call's). The guard
 * rails are deployment settings for both commands.
 */
export function createOptionsTool(
  options: AgentOptions & GuardRailOptions & EvaluatorOptions & SandboxOptions & AskOptions,
  {
    agentId,
    deploymentMaxRounds,
    traceProvider,
    hide,
    waitForAnswersMs,
  }: {
    agentId: string;
    /** Paths of this command's own that a sandboxed process must not see (its recording). */
    hide?: readonly (string | undefined)[];
    deploymentMaxRounds?: string;
    /** Wraps the provider so that its children are traced (a `ralph run` whose environment asks for traces). */
    traceProvider?: (provider: SubagentProvider) => SubagentProvider;
    /** With `--ask`: how long a blocked run waits for a person's answer (ms). */
    waitForAnswersMs?: number;
  },
): OptionsTool {
  const provider = providerFor(options);
  const evaluator = evaluatorFor(options);
  const cwd = workspaceFor(options);
  const guardRails = guardRailConfig(options);
  const sandbox = sandboxConfig(options, hide);
  const providers = createProviderRegistry();
  providers.register(traceProvider === undefined ? provider : traceProvider(provider));
  if (evaluator !== undefined)
    providers.register(traceProvider === undefined ? evaluator : traceProvider(evaluator));
  let tool: RalphTool;
  try {
    tool = createRalphTool(
      {
        subagentProvider: provider.name,
        ...(options.graceMs === undefined ? {} : { terminationGraceMs: parseNumberOption(options.graceMs) }),
        ...(deploymentMaxRounds === undefined ? {} : { maxRounds: parseNumberOption(deploymentMaxRounds) }),
        ...guardRails,
        // The batch passes its own (every task's); a run's come from its flags.
        ...(waitForAnswersMs === undefined ? askConfig(options) : { waitForAnswersMs }),
        ...(evaluator === undefined ? {} : { evaluator: { provider: evaluator.name } }),
        ...sandbox,
      },
      { providers },
    );
  } catch (error) {
    throw withHint(error, configHint(options.graceMs, deploymentMaxRounds));
  }
  // Every process group this process started, so also what an agent's own tools started in groups of their own.
  return {
    tool,
    agent: { id: agentId, cwd },
    killChildren: killLiveGroups,
    preflight: async () => {
      assertAgentStartable(provider, options, cwd);
      // The evaluator's own preflight refuses in its flags' words (evaluator-options.ts).
      evaluator?.preflight?.(cwd);
      if (sandbox.sandbox !== undefined) await assertSandboxAvailable();
    },
  };
}
