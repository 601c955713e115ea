import { RalphError } from '../../contract/errors.js';
import type { SubagentProvider } from '../../contract/types.js';
import type { FleetJson, FleetProviderFactory } from '../../fleet/run-input.js';
import type { AGENT_PRESETS, AgentOptions } from './agent-options.js';
import { AGENT_CONFLICT } from './cli-texts.js';
import { providerFor } from './cli-tool.js';
import { EVALUATOR_PRESETS, type EvaluatorOptions, evaluatorFor } from './evaluator-options.js';

type Preset = (typeof AGENT_PRESETS)[number];

/** What a worker offers to run: its own choice, never a submitted run's. */
export interface WorkerAgentOptions {
  /** The presets it runs (`--agent`, repeatable). */
  agent?: Preset[];
  /** Its own claude and codex executables: a submitted run's paths are never used. */
  claudePath?: string;
  codexPath?: string;
  qwenPath?: string;
  geminiPath?: string;
  opencodePath?: string;
  copilotPath?: string;
  droidPath?: string;
  /** Whether it runs runs submitted with `--agent-command` (any command, as the submitter chose). */
  allowAgentCommand?: boolean;
}

/** Refusal: `ralph worker` was started offering no agent. */
export const WORKER_AGENTS_MISSING =
  'ralph worker needs the agents it will run: pass --agent claude|codex|example (repeatable; --claude-path and ' +
  '--codex-path set their executables), and --allow-agent-command to also run runs submitted with --agent-command';

/**
 * Refusal: `ralph worker --agent example` without `--allow-agent-command`. The example agent runs the commands its
 * workspace's checklist names, and a submitter chooses the workspace and its files (or the repository of a batch).
 */
export const WORKER_EXAMPLE_NEEDS_COMMANDS =
  "ralph worker --agent example runs the commands of a run's checklist (the backticked commands of its workspace's " +
  'TASKS.md), which its submitter chooses: pass --allow-agent-command with it, as for runs submitted with --agent-command';

/** What the worker offers, as its refusals name it. */
function offered(options: WorkerAgentOptions): string {
  const presets = options.agent ?? [];
  const names = presets.map((name) => `--agent ${name}`);
  if (options.allowAgentCommand === true) names.push('--agent-command runs');
  return names.join(', ');
}

const refusedRun = (what: string, options: WorkerAgentOptions) =>
  new RalphError({
    code: 'refused',
    message: `ralph fleet: this worker does not run ${what}; it offers ${offered(options)}. Nothing was started`,
  });

/** The worker's own executables, for the presets it offers. */
function executablesOf(options: WorkerAgentOptions): Omit<AgentOptions, 'agent'> {
  const { claudePath, codexPath, qwenPath, geminiPath, opencodePath, copilotPath, droidPath } = options;
  const paths = { claudePath, codexPath, qwenPath, geminiPath, opencodePath, copilotPath, droidPath };
  return Object.fromEntries(Object.entries(paths).filter(([, path]) => path !== undefined));
}

/** Whether a preset may judge a run: every real agent, not the offline example agent (it does work, it judges none). */
const isEvaluatorPreset = (name: string): name is NonNullable<EvaluatorOptions['evaluator']> =>
  (EVALUATOR_PRESETS as readonly string[]).includes(name);

/**
 * The worker's provider factory: a run gets the preset it names if the worker offers it (with the worker's own
 * executable), or its `--agent-command` if the worker allows those; anything else settles the run refused, starting
 * nothing. A run's evaluator (`role` 'evaluator', stored in the same shape) is an agent like any other: the worker
 * runs it only if it offers that preset (then read-only), or allows commands for an `--evaluator-command`.
 * Refused (exit 2) when the options offer nothing, or the example agent without `--allow-agent-command`.
 */
export function workerProviderFactory(options: WorkerAgentOptions): FleetProviderFactory {
  if ((options.agent ?? []).length === 0 && options.allowAgentCommand !== true) {
    throw new RalphError({ code: 'refused', message: WORKER_AGENTS_MISSING });
  }
  if ((options.agent ?? []).includes('example') && options.allowAgentCommand !== true)
    throw new RalphError({ code: 'refused', message: WORKER_EXAMPLE_NEEDS_COMMANDS });
  return (agent: FleetJson, role?: 'evaluator'): SubagentProvider => {
    const asked = (typeof agent === 'object' && agent !== null && !Array.isArray(agent) ? agent : {}) as {
      agent?: unknown;
      agentCommand?: unknown;
      agentReportsCost?: unknown;
    };
    const what = role === 'evaluator' ? 'evaluator' : 'agent';
    if (asked.agentCommand !== undefined) {
      if (options.allowAgentCommand !== true)
        throw refusedRun(`runs submitted with --${what}-command`, options);
      if (asked.agent !== undefined) throw new RalphError({ code: 'refused', message: AGENT_CONFLICT });
      const command = String(asked.agentCommand);
      const reportsCost = asked.agentReportsCost === true;
      if (role === 'evaluator')
        return evaluatorFor({
          evaluatorCommand: command,
          ...(reportsCost ? { evaluatorReportsCost: true } : {}),
        }) as SubagentProvider;
      return providerFor({ agentCommand: command, ...(reportsCost ? { agentReportsCost: true } : {}) });
    }
    const preset = (options.agent ?? []).find((name) => name === asked.agent);
    if (preset === undefined || (role === 'evaluator' && !isEvaluatorPreset(preset)))
      throw refusedRun(`the ${what} ${JSON.stringify(asked.agent ?? null)}`, options);
    if (role === 'evaluator' && isEvaluatorPreset(preset))
      return evaluatorFor({ evaluator: preset, ...executablesOf(options) }) as SubagentProvider;
    return providerFor({ agent: preset, ...executablesOf(options) });
  };
}
