import { isAbsolute } from 'node:path';
import type { RalphConfigInput } from '../contract/config.js';
import type { RalphFailure } from '../contract/errors.js';
import { RalphError } from '../contract/errors.js';
import type { RalphEnvelope, SubagentProvider } from '../contract/types.js';
import { isDirectory } from '../workspace/directory.js';
import type { FleetBatchTask } from './batch-input.js';
import type { FleetSandboxAsk } from './run-sandbox.js';

/** Plain JSON, as a run's input is stored in Postgres. */
export type FleetJson = null | boolean | number | string | FleetJson[] | { [key: string]: FleetJson };

/**
 * Turns a run's `agent` (whatever JSON its submitter chose, e.g. the agent options of `ralph run`) into the provider
 * of its rounds, on the worker that runs it; with `role` 'evaluator', the run's `evaluator` (the same kind of JSON)
 * into the provider of its independent evaluator. A RalphError it throws settles the run with that failure.
 */
export type FleetProviderFactory = (agent: FleetJson, role?: 'evaluator') => SubagentProvider;

/**
 * The guard rails of a fleet run: the config fields of `ralph run`'s guard rails, held by whichever worker runs it.
 * A wall-clock budget counts from the run's start, and a cost budget counts the rounds of every worker that ran it.
 */
export type FleetGuardRails = Pick<RalphConfigInput, (typeof FLEET_GUARD_RAILS)[number]>;

/** The config fields a run's guard rails may set: nothing else of a worker's config is a submitter's to choose. */
export const FLEET_GUARD_RAILS = [
  'roundTimeoutMs',
  'maxWallTimeMs',
  'verify',
  'maxIdleRounds',
  'maxCostUsd',
  'waitOnLimits',
  // `ralph submit --ask`: a blocked round waits for a person's answer, durably (see answer-wait.ts).
  'waitForAnswersMs',
] as const satisfies readonly (keyof RalphConfigInput)[];

/** The guard rails a run's stored input sets, and only those fields (its input is whatever JSON was submitted). */
export function guardRailsOf(input: Pick<FleetRunInput, 'guardRails'>): FleetGuardRails {
  const stored = (input.guardRails ?? {}) as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const field of FLEET_GUARD_RAILS) if (stored[field] !== undefined) picked[field] = stored[field];
  return picked as FleetGuardRails;
}

/**
 * A run's workflow input, stored in Postgres: everything a worker on any machine needs to run it. The objective and
 * the caps go to the tool unchecked, as `ralph run` passes them, so the tool's own checks judge them.
 */
export interface FleetRunInput {
  objective: unknown;
  maxRounds?: unknown;
  /** How long a stopping child may take before it is killed (ms); the tool's default when absent. */
  terminationGraceMs?: unknown;
  /** The run's guard rails (absent: none, the reference's run); the tool's own config check judges them. */
  guardRails?: FleetGuardRails;
  /** What the workers' provider factory makes the rounds' provider from. */
  agent: FleetJson;
  /**
   * The run's independent evaluator (`ralph submit --evaluator`), in the shape of `agent` (`{ agent: 'claude' }`,
   * `{ agentCommand: '…' }`): the workers' provider factory makes it with role 'evaluator', and a worker that does not
   * offer it settles the run refused. Absent: no evaluator, the reference's run.
   */
  evaluator?: FleetJson;
  /** The workspace: an absolute path that must name the same folder on every worker (a shared volume). */
  cwd: string;
  /**
   * Where the run's notifications go (`ralph submit --notify`): POSTed to only by a worker started with
   * `--allow-notify`. Whatever JSON was stored: the worker keeps only the http(s) URLs.
   */
  notify?: { urls?: FleetJson };
  /**
   * The run asks for the sandbox (`ralph submit --sandbox`): every worker runs it in one, or refuses it where no
   * sandbox can start. It never turns a worker's sandbox off: a worker started with `--sandbox` runs every run in its
   * own, without the network when this says `network: 'none'`. Absent: the worker's choice.
   */
  sandbox?: FleetSandboxAsk;
  /**
   * Set for a task of a batch (`ralph submit --batch`): the worker works in a worktree of its own clone of the
   * batch's repository instead of `cwd`, pushes the task's branch, and lands it through the merge queue.
   */
  batch?: FleetBatchTask;
}

/** How a run's workflow ends: the envelope, or the failure the tool settled with. */
export type FleetOutcome = { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };

/** What a submission names. */
export type FleetSubmission = FleetRunInput;

/** The refusal of a workspace that is not an absolute path to a folder (here, or on the worker). */
export function fleetWorkspaceRefused(cwd: unknown, where: string): RalphError {
  return new RalphError({
    code: 'refused',
    message: `ralph fleet: the workspace ${JSON.stringify(cwd)} is not an absolute path to a folder ${where}`,
  });
}

/** Checks a submission where it is submitted: the workspace is an absolute path to a folder here. */
export function assertSubmittable(submission: FleetSubmission): void {
  if (typeof submission.cwd !== 'string' || !isAbsolute(submission.cwd) || !isDirectory(submission.cwd)) {
    throw fleetWorkspaceRefused(submission.cwd, 'where it is submitted');
  }
}
