import { createRalphEngine } from '../actors/engine.js';
import { isRalphError, RalphError } from '../contract/errors.js';
import type { SubagentProvider } from '../contract/types.js';
import type { RecordingSink } from '../inspect/recording-format.js';
import { createProviderRegistry } from '../providers/registry.js';
import { onProgressOf } from '../run/progress-listeners.js';
import type { RalphExec } from '../run/tool.js';
import { createRalphTool } from '../run/tool.js';
import type { TraceExport } from '../trace/otlp-export.js';
import { createRunTracer, type RunTracer } from '../trace/run-tracer.js';
import { fleetTraceIdOf } from '../trace/start-traces.js';
import { isDirectory } from '../workspace/directory.js';
import { type DurableMessages, durableAnswers } from './answer-wait.js';
import { type DurableSteps, durableProvider } from './durable-provider.js';
import {
  type FleetOutcome,
  type FleetProviderFactory,
  type FleetRunInput,
  fleetWorkspaceRefused,
  guardRailsOf,
} from './run-input.js';
import { runSandbox, type WorkerSandbox } from './run-sandbox.js';

/** Refusal: a run carries a `--verify` command and its worker was not started with `--allow-verify`. */
const verifyRefused = (workerId: string) =>
  new RalphError({
    code: 'refused',
    message:
      `ralph fleet: worker ${workerId} does not run a submitted run's --verify command (start it with ` +
      '--allow-verify to let submitters choose one). Nothing was started',
  });

/**
 * The evaluator provider a worker's factory made, under a registry name of its own: a factory that names it as it
 * names the rounds' agent (a library's may) would otherwise replace the rounds' provider in the run's registry.
 */
function evaluatorOf(made: SubagentProvider, rounds: SubagentProvider): SubagentProvider {
  return made.name === rounds.name ? { ...made, name: `${made.name}-evaluator` } : made;
}

/** The step that records when a run with a wall-clock budget began, so the budget runs from then on any worker. */
export const STARTED_STEP = 'run-started';

/**
 * Runs one fleet run inside its DBOS workflow: the ralph tool over the provider the worker's factory makes of the
 * input's agent, wrapped so that every
 * round is a step. The statechart decides everything from the step results, so a re-execution after a crash replays
 * the completed rounds and decides the same. The envelope carries the workflow's id as its run id (the id
 * `ralph submit` printed), and a failure is returned as data, so `ralph wait` can print and exit as `ralph run`.
 */
export async function runFleetRun(
  input: FleetRunInput,
  {
    workflowId,
    steps,
    messages,
    providerFor,
    allowVerify = false,
    workerId,
    sandbox: worker = { hide: [] },
    traces,
    onProgress,
    onUsage,
    record,
  }: {
    workflowId: string;
    steps: DurableSteps;
    /** The DBOS messaging of a run that asks (`ralph submit --ask`): its answer is a durable message. */
    messages?: DurableMessages;
    providerFor: FleetProviderFactory;
    /** Whether the worker runs a submitted `--verify` command (see RalphWorkerOptions.allowVerify). */
    allowVerify?: boolean;
    workerId: string;
    /** The worker's sandbox: every run's (`ralph worker --sandbox`), and what a run that asks for one hides. */
    sandbox?: WorkerSandbox;
    /** The worker's trace exporter, when its environment asks for traces: the run's spans go there. */
    traces?: TraceExport;
    /** The run's progress, as `ralph run` sees it (the worker's notifications). */
    onProgress?: RalphExec['onProgress'];
    /** What its rounds said they used, summed, once it is over. */
    onUsage?: RalphExec['onUsage'];
    /** Where the run's recording lines go (the fleet's run events table, which `ralph dashboard` shows). */
    record?: RecordingSink;
  },
): Promise<FleetOutcome> {
  const controller = new AbortController();
  // One trace per run whichever worker runs it: its id comes from the run's (see fleetTraceIdOf).
  const tracer: RunTracer | undefined =
    traces === undefined
      ? undefined
      : createRunTracer(traces, { runId: workflowId, traceId: fleetTraceIdOf(workflowId) });
  try {
    if (!isDirectory(input.cwd)) throw fleetWorkspaceRefused(input.cwd, `on worker ${workerId}`);
    const made = providerFor(input.agent);
    // The run's evaluator, an agent like any other: a worker that does not offer it refuses the run, starting nothing.
    const judge =
      input.evaluator === undefined
        ? undefined
        : evaluatorOf(providerFor(input.evaluator, 'evaluator'), made);
    // Traced inside the durable wrapper: a round replayed from its step starts no child, so it gets no child span.
    const traced = (provider: SubagentProvider) =>
      tracer === undefined ? provider : tracer.traceProvider(provider);
    const real = traced(made);
    const providers = createProviderRegistry();
    const durable = { runId: workflowId, onCancel: () => controller.abort() };
    providers.register(durableProvider(real, steps, durable));
    // Its child is a step as a round's is: replayed when recorded, started again when a takeover cut it short.
    if (judge !== undefined) providers.register(durableProvider(traced(judge), steps, durable));
    const grace = input.terminationGraceMs;
    // Unchecked too (the config's check judges them), but only the guard rails' fields.
    const guardRails = guardRailsOf(input);
    // A verify command is a command the submitter chose: the worker runs it only if its operator said so.
    if (guardRails.verify != null && !allowVerify) throw verifyRefused(workerId);
    // The worker's sandbox, or the one the run asks for: where none can start, the tool refuses before anything starts.
    const sandbox = runSandbox(worker, input.sandbox, workerId);
    const tool = createRalphTool(
      // Unchecked, as `ralph run` passes --grace-ms: the config's own check judges it.
      {
        subagentProvider: real.name,
        ...(grace === undefined ? {} : { terminationGraceMs: grace as number }),
        ...guardRails,
        ...(judge === undefined ? {} : { evaluator: { provider: judge.name } }),
        ...(sandbox === undefined ? {} : { sandbox }),
      },
      // The verify commands' outcomes and the workspace's fingerprints are steps too: a replay decides the same.
      {
        providers,
        engine: createRalphEngine({ journal: { step: (name, body) => steps.runStep(body, name) } }),
      },
    );
    // Recorded once: a worker that takes the run over replays it, so the budget still counts from the run's start.
    const startedAt =
      guardRails.maxWallTimeMs === undefined
        ? undefined
        : await steps.runStep(async () => Date.now(), STARTED_STEP);
    const args: Record<string, unknown> = {};
    if (input.objective !== undefined) args.objective = input.objective;
    if (input.maxRounds !== undefined) args.maxRounds = input.maxRounds;
    // A run that asks waits for its answer durably: a message any worker that runs it next takes, once.
    const answers =
      guardRails.waitForAnswersMs === undefined || messages === undefined
        ? undefined
        : // Parked, the run stops here as if cancelled; its worker tells nobody (see the worker's workflow).
          durableAnswers({ ...steps, ...messages }, { ...durable, onParked: () => controller.abort() });
    const envelope = await tool.execute(args, {
      ...(answers === undefined ? {} : { answers }),
      agent: { id: `fleet:${workflowId}`, cwd: input.cwd },
      signal: controller.signal,
      ...(record === undefined ? {} : { record }),
      ...(startedAt === undefined ? {} : { startedAt }),
      ...onProgressOf(tracer?.onProgress, onProgress),
      ...(onUsage === undefined ? {} : { onUsage }),
    });
    const outcome = { ...envelope, runId: workflowId };
    tracer?.finish({ envelope: outcome });
    return { ok: true, envelope: outcome };
  } catch (error) {
    tracer?.finish({ error });
    if (!isRalphError(error)) throw error;
    const { runId: _runId, ...failure } = error.toJSON();
    return { ok: false, failure };
  }
}
