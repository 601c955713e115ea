import type { RalphFailure } from '../../contract/errors.js';
import type { RalphEnvelope } from '../../contract/types.js';
import type { AgentOptions } from '../cli/agent-options.js';
import { providerFor, workspaceFor } from '../cli/cli-tool.js';

/** The agent a fleet run's rounds use: the options of `ralph run`, as plain strings, minus the workspace. */
export type FleetAgentOptions = Omit<AgentOptions, 'cwd'>;

/**
 * A run's workflow input, stored in Postgres: everything a worker on any machine needs to run it. The objective and
 * the cap go to the tool unchecked, as `ralph run` passes them, so the tool's own checks judge them.
 */
export interface FleetRunInput {
  objective: unknown;
  maxRounds?: unknown;
  agent: FleetAgentOptions;
  /** The workspace: an absolute path that must name the same folder on every worker (a shared volume). */
  cwd: string;
}

/** How a run's workflow ends: the envelope, or the failure the tool settled with. */
export type FleetOutcome = { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };

/** What a submission names: the objective and cap of the call, and the agent options as `ralph run` takes them. */
export interface FleetSubmission {
  objective: unknown;
  maxRounds?: unknown;
  agent: AgentOptions;
}

/**
 * The workflow input of a submission, checked where it is submitted as `ralph run` checks it before it starts
 * anything: an agent is named (once), the workspace is a folder here (resolved to an absolute
 * path). Throws the refusal.
 */
export function fleetRunInputFor(submission: FleetSubmission): FleetRunInput {
  const { cwd: _cwd, ...agent } = submission.agent;
  providerFor(submission.agent);
  const input: FleetRunInput = {
    objective: submission.objective,
    agent,
    cwd: workspaceFor(submission.agent),
  };
  if (submission.maxRounds !== undefined) input.maxRounds = submission.maxRounds;
  return input;
}
