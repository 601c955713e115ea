import { RalphError } from '../../contract/errors.js';
import { evaluatorLacksCostReports } from '../../contract/evaluator-messages.js';
import { SUBMIT_SANDBOX_ENV_REFUSED } from '../../contract/fleet-sandbox-messages.js';
import { costBudgetNeedsCostReports } from '../../contract/guard-rail-messages.js';
import type { FleetJson, FleetSubmission } from '../../fleet/run-input.js';
import { parseNumberOption } from '../../run/numbers.js';
import type { AgentOptions } from './agent-options.js';
import { type AskOptions, askConfig } from './ask-options.js';
import { providerFor, workspaceFor } from './cli-tool.js';
import { type EvaluatorOptions, evaluatorFor } from './evaluator-options.js';
import {
  anyWorkerLive,
  type FleetOptions,
  NO_LIVE_WORKER,
  reportFleetFailure,
  withFleet,
} from './fleet-cli.js';
import { type GuardRailOptions, guardRailConfig } from './guard-rail-options.js';
import { type NotifyOptions, notifyTargetsOf } from './notify-options.js';
import { type SandboxOptions, sandboxConfig } from './sandbox-options.js';

/** The options of `ralph submit`. */
export interface SubmitOptions
  extends AgentOptions,
    GuardRailOptions,
    EvaluatorOptions,
    FleetOptions,
    NotifyOptions,
    SandboxOptions,
    AskOptions {
  maxRounds?: string;
}

/**
 * The run's ask for the sandbox as it is stored: `{}`, or `{ network: 'none' }` without the network; absent without
 * `--sandbox` (a sandbox setting without it is refused, as `ralph run` refuses it). `--sandbox-env` is refused: the
 * variables a sandboxed agent keeps come from the worker's environment.
 */
function sandboxAsk(options: SandboxOptions): FleetSubmission['sandbox'] {
  if ((options.sandboxEnv ?? []).length > 0)
    throw new RalphError({ code: 'refused', message: SUBMIT_SANDBOX_ENV_REFUSED });
  if (sandboxConfig(options).sandbox === undefined) return undefined;
  return options.sandboxNetwork === 'none' ? { network: 'none' } : {};
}

/**
 * The run's evaluator as it is stored: in the shape of its `agent` (a preset, or a command and whether it reports
 * its cost), since on the fleet the evaluator is an agent like any other, run only by a worker that offers it.
 */
function storedEvaluator(options: EvaluatorOptions): FleetJson | undefined {
  if (options.evaluatorCommand !== undefined)
    return {
      agentCommand: options.evaluatorCommand,
      ...(options.evaluatorReportsCost === true ? { agentReportsCost: true } : {}),
    };
  return options.evaluator === undefined ? undefined : { agent: options.evaluator };
}

/**
 * The submission of `ralph submit`: the agent options of `ralph run` as the run's `agent` (checked here as `ralph
 * run` checks them: one agent named, the workspace a folder), the workspace resolved to an absolute path, and the
 * guard rails as `ralph run` reads them (a bad value refused here), to be held by whichever worker runs it.
 */
export function submissionOf(objective: string | undefined, options: SubmitOptions): FleetSubmission {
  const {
    databaseUrl: _url,
    databaseUrlFile: _file,
    maxRounds,
    graceMs,
    cwd: _cwd,
    roundTimeout: _roundTimeout,
    maxTime: _maxTime,
    verify: _verify,
    verifyTimeout: _verifyTimeout,
    maxIdleRounds: _maxIdleRounds,
    maxCost: _maxCost,
    waitOnLimits: _waitOnLimits,
    notify,
    notifyCommand: _notifyCommand,
    notifyTimeout: _notifyTimeout,
    evaluator: _evaluator,
    evaluatorCommand: _evaluatorCommand,
    evaluatorReportsCost: _evaluatorReportsCost,
    sandbox: _sandbox,
    sandboxNetwork: _sandboxNetwork,
    sandboxEnv: _sandboxEnv,
    sandboxHide: _sandboxHide,
    ask: _ask,
    waitForAnswers: _waitForAnswers,
    ...agent
  } = options;
  const provider = providerFor(options);
  // Refused here as `ralph run` refuses it (both evaluator options given), before the database is asked.
  const judge = evaluatorFor(options);
  const executable = "the executable is the worker's to choose";
  // A notify command is a command: it runs on a worker only as that worker's operator wrote it.
  const notifying = "notification commands and their timeout are the worker's to choose";
  for (const [given, flag, whose] of [
    [options.claudePath, '--claude-path', executable],
    [options.codexPath, '--codex-path', executable],
    [options.qwenPath, '--qwen-path', executable],
    [options.geminiPath, '--gemini-path', executable],
    [options.opencodePath, '--opencode-path', executable],
    [options.copilotPath, '--copilot-path', executable],
    [options.droidPath, '--droid-path', executable],
    [options.notifyCommand, '--notify-command', notifying],
    [options.notifyTimeout, '--notify-timeout', notifying],
  ] as const) {
    if (given !== undefined)
      throw new RalphError({
        code: 'refused',
        message: `ralph submit ${flag}: ${whose} (ralph worker ${flag}); nothing was submitted`,
      });
  }
  const submission: FleetSubmission = { objective, agent: { ...agent }, cwd: workspaceFor(options) };
  // With --ask the run's blocked round waits for an answer (`ralph answer`), on whichever worker runs it.
  const guardRails = { ...guardRailConfig(options), ...askConfig(options) };
  // The worker's tool would refuse it too, but only once a worker took it: here it is refused before it is queued.
  if (guardRails.maxCostUsd !== undefined && provider.capabilities.reportsCost !== true) {
    const message = costBudgetNeedsCostReports(provider.name, guardRails.maxCostUsd);
    throw new RalphError({ code: 'refused', message });
  }
  if (guardRails.maxCostUsd !== undefined && judge !== undefined && judge.capabilities.reportsCost !== true)
    throw new RalphError({ code: 'refused', message: evaluatorLacksCostReports(judge.name) });
  const sandbox = sandboxAsk(options);
  if (sandbox !== undefined) submission.sandbox = sandbox;
  const evaluator = storedEvaluator(options);
  if (evaluator !== undefined) submission.evaluator = evaluator;
  if (Object.keys(guardRails).length > 0) submission.guardRails = guardRails;
  if (notify !== undefined) submission.notify = { urls: notifyTargetsOf({ notify }).urls.map(String) };
  if (maxRounds !== undefined) submission.maxRounds = parseNumberOption(maxRounds);
  if (graceMs !== undefined) submission.terminationGraceMs = parseNumberOption(graceMs);
  return submission;
}

/** `ralph submit`: enqueues a run with the agent options of `ralph run` and prints its id on stdout. */
export async function submitCommand(objective: string | undefined, options: SubmitOptions): Promise<number> {
  let submission: FleetSubmission;
  try {
    // Refused before the database is even asked, as `ralph run` refuses before it starts anything.
    submission = submissionOf(objective, options);
  } catch (error) {
    return reportFleetFailure(error);
  }
  return withFleet(
    options,
    async (fleet) => {
      const runId = await fleet.submit(submission);
      process.stdout.write(`${runId}\n`);
      if (!(await anyWorkerLive(fleet))) process.stderr.write(`ralph submit: ${NO_LIVE_WORKER}\n`);
      return 0;
    },
    { create: true },
  );
}
