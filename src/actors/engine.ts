import { nanoid } from 'nanoid';
import {
  type Actor,
  createActor,
  fromPromise,
  type InspectionEvent,
  type Observer,
  toObserver,
} from 'xstate';
import type { AnswerOutcome, AnswerSource, RalphQuestion } from '../contract/answers.js';
import { DEFAULT_MAX_ROUNDS } from '../contract/call.js';
import type { RalphConfig } from '../contract/config.js';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';
import { isPositiveSafeInteger } from '../contract/integers.js';
import { WORKFLOW_CANCELLED, workflowFailed } from '../contract/messages.js';
import type {
  AgentRef,
  GuardRails,
  RalphEnvelope,
  RalphProgressEvent,
  SubagentProvider,
} from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import { createRunRecorder, type RunRecorder } from '../inspect/recorder.js';
import { openRecordingFile, type RecordingFile } from '../inspect/recording-file.js';
import type { RecordingSink } from '../inspect/recording-format.js';
import { type RalphMachineInput, type RalphResumePoint, ralphMachine } from '../machines/ralph.machine.js';
import { type AnswerDelivery, createAnswerInbox, firstAnswer, notWaiting } from './answer-inbox.js';
import { createRoundActors, type RunChildren, runChildren } from './child-round.js';
import { createEvaluatorActors, type RunEvaluators, runEvaluators } from './evaluator-round.js';
import { evaluatorWorkspaceWatch } from './evaluator-watch.js';
import { createGuardRailActors, type RalphJournal } from './guard-rail-actors.js';
import { railClockOf } from './rail-clock.js';

/** Options of an engine: its ceiling on children per run, and an optional inspector. */
export interface RalphEngineOptions {
  /** The engine's own ceiling on children in one run (default and maximum: 256). */
  maxTotalAgents?: number;
  /** An XState inspection observer (e.g. the Stately inspector) attached to every run. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Records what the guard rails observed, for a durable host that replays its runs (see RalphJournal). */
  journal?: RalphJournal;
}

/** What one run starts from. */
export interface RalphRunRequest {
  args: unknown;
  agent: AgentRef | undefined;
  config: RalphConfig;
  /** The provider resolved from the registry for this call, or undefined when it is not registered. */
  provider: SubagentProvider | undefined;
  /** The evaluator provider `config.evaluator` names, resolved from the registry (undefined: not registered). */
  evaluator?: SubagentProvider | undefined;
  onProgress?: (event: RalphProgressEvent) => void;
  /**
   * Where a run that asks (`config.waitForAnswersMs`) takes a person's answer from, besides its handle's `answer`:
   * a terminal, a file, a page, a durable message. Absent: only the handle's.
   */
  answers?: AnswerSource;
}

/** A started run. */
export interface RalphRun {
  runId: string;
  /** Settles once the run is over and no child is left running; rejects with a RalphError. */
  result: Promise<RalphEnvelope>;
  /** Cancels the run; `result` then waits for the child to stop. */
  cancel(): void;
  /** Releases the run; cancels it first if it is still going. */
  dispose(): void;
  /** The running machine actor, for hosts that want to watch its snapshots. */
  actor: Actor<typeof ralphMachine> | null;
  /** What the run's rounds said they used so far, summed; null while none said anything. */
  usage(): RalphUsage | null;
  /** Answers the question the run waits on (`config.waitForAnswersMs`); nothing happens when it does not wait. */
  answer(text: string, by?: string): AnswerDelivery;
  /** Tells the run that waits for an answer that none will come: it ends blocked now. */
  giveUp(by?: string): AnswerDelivery;
}

/** How one run is started. */
export interface RalphStartOptions {
  /** Aborting it cancels the run. */
  signal?: AbortSignal;
  /**
   * Records the run (see the recording format in `inspect/recording-format.ts`): a file path, created or truncated
   * and closed once the run settled, or a sink that gets each line as it is written and stays the host's to close.
   * A run cancelled before it began records nothing; a file that cannot be created refuses the run.
   */
  record?: string | RecordingSink;
  /** What the host keeps in the recording's header as `host` (e.g. `ralph run`'s options, for `ralph resume`). */
  recordingHost?: Record<string, unknown>;
  /**
   * Continues a run that did not settle, under its own run id, from its resume point (see `resumePointOf` for one
   * read off a recording); the call's arguments must be the run's own.
   */
  resume?: { runId: string; point: RalphResumePoint };
  /**
   * When the run began (ms since the epoch), if before this start: a fleet run another worker began, whose
   * wall-clock budget (`maxWallTimeMs`) counts from then. Absent: now.
   */
  startedAt?: number;
}

/** Starts runs of the ralph machine. */
export interface RalphEngine {
  maxTotalAgents: number;
  start(request: RalphRunRequest, options?: RalphStartOptions): RalphRun;
}

/** The code of the warning a run emits the first time its host's onProgress throws. */
export const ON_PROGRESS_THREW = 'RALPH_ON_PROGRESS_THREW';

/**
 * Wraps a host's onProgress so that a throw never reaches XState, which would re-throw it from a timer and end
 * the process: the run goes on, later events are still delivered, and the first throw of the run is reported
 * as a process warning (one per run, so a listener that always throws does not flood the host's log).
 */
function guardedProgress(
  runId: string,
  onProgress: (event: RalphProgressEvent) => void,
): (event: RalphProgressEvent) => void {
  let warned = false;
  return (event) => {
    try {
      onProgress(event);
    } catch (error) {
      if (warned) return;
      warned = true;
      process.emitWarning(
        `Ralph run ${runId}: onProgress threw: ${errorText(error)} (on ${event.type} of round ${event.round}); ` +
          'the run goes on and later progress is still delivered',
        { type: 'RalphWarning', code: ON_PROGRESS_THREW },
      );
    }
  };
}

/** The refusal of a run whose recording file cannot be created: nothing is started. */
function recordingRefused(path: string, error: unknown): RalphError {
  return new RalphError({
    code: 'refused',
    message: `Ralph could not record the run: cannot create ${path}: ${errorText(error)}`,
  });
}

/** The run's recorder and, for a path, the file the engine opened for it and closes when the run settled. */
function recorderFor(
  record: string | RecordingSink,
  request: RalphRunRequest,
  runId: string,
  host: Record<string, unknown> | undefined,
): { recorder: RunRecorder; file: RecordingFile | undefined } {
  const file = typeof record === 'string' ? openRecordingFile(record) : undefined;
  const recorder = createRunRecorder(file ?? (record as RecordingSink), {
    runId,
    machine: ralphMachine,
    maxResultChars: request.config.maxResultChars,
    ...(host === undefined ? {} : { host }),
  });
  return { recorder, file };
}

/** The guard rails a config sets; each absent one is off. */
export function guardRailsOf(config: RalphConfig): GuardRails {
  return {
    roundTimeoutMs: config.roundTimeoutMs ?? null,
    maxWallTimeMs: config.maxWallTimeMs ?? null,
    verify: config.verify === undefined ? null : { ...config.verify, argv: [...config.verify.argv] },
    maxIdleRounds: config.maxIdleRounds ?? null,
    // Only when set, so that the machine input of a run without it is the one it always was.
    ...(config.maxCostUsd === undefined ? {} : { maxCostUsd: config.maxCostUsd }),
    ...(config.waitOnLimits === true ? { waitOnLimits: true } : {}),
    ...(config.waitForAnswersMs === undefined ? {} : { waitForAnswersMs: config.waitForAnswersMs }),
  };
}

/** What the machine is told of a provider: its name and what it declared (registered: it was found). */
function providerSnapshotOf(name: string, provider: SubagentProvider | undefined, sandboxed: boolean) {
  return {
    name,
    registered: provider !== undefined,
    structuredOutput: provider?.capabilities.structuredOutput === true,
    inheritsParentContext: provider?.capabilities.inheritsParentContext !== false,
    ...(provider?.capabilities.reportsCost === true ? { reportsCost: true } : {}),
    ...(sandboxed && provider?.capabilities.sandbox === true ? { sandbox: true } : {}),
  };
}

/** The machine input a request maps to. */
export function machineInputOf(
  request: RalphRunRequest,
  runId: string,
  maxTotalAgents: number,
  resume?: RalphResumePoint,
  startedAt?: number,
): RalphMachineInput {
  const { config, provider } = request;
  const guardRails = guardRailsOf(config);
  const sandboxed = config.sandbox !== undefined;
  if (startedAt !== undefined && guardRails.maxWallTimeMs !== null)
    guardRails.spentWallTimeMs = Math.max(0, Date.now() - startedAt);
  return {
    runId,
    args: request.args,
    agent: request.agent ?? null,
    provider: providerSnapshotOf(config.subagentProvider, provider, sandboxed),
    maxRounds: config.maxRounds,
    maxHandoffChars: config.maxHandoffChars,
    terminationGraceMs: config.terminationGraceMs,
    maxTotalAgents,
    ...(resume === undefined ? {} : { resume }),
    guardRails,
    // Only with an evaluator, so that the input of a run without one is the one it always was.
    ...(config.evaluator === undefined
      ? {}
      : { evaluator: providerSnapshotOf(config.evaluator.provider, request.evaluator, sandboxed) }),
    // Likewise only with a sandbox.
    ...(config.sandbox === undefined ? {} : { sandbox: config.sandbox }),
  };
}

/** The handle's answers of a run that never started, so never waits. */
function neverWaits(runId: string): Pick<RalphRun, 'answer' | 'giveUp'> {
  const refused = (): AnswerDelivery => ({ delivered: false, problem: notWaiting(runId) });
  return { answer: refused, giveUp: refused };
}

/** Creates the engine that runs the ralph machine, one actor per run. */
export function createRalphEngine(options: RalphEngineOptions = {}): RalphEngine {
  const maxTotalAgents = options.maxTotalAgents ?? DEFAULT_MAX_ROUNDS;
  if (!isPositiveSafeInteger(maxTotalAgents) || maxTotalAgents > DEFAULT_MAX_ROUNDS) {
    throw new RangeError(`maxTotalAgents must be a whole number from 1 to ${DEFAULT_MAX_ROUNDS}`);
  }

  const hostInspector = options.inspect === undefined ? undefined : toObserver(options.inspect);
  // One provided machine for all of the engine's runs; each run's actors find its children here by runId.
  const runs = new Map<string, RunChildren>();
  const evaluations = new Map<string, RunEvaluators>();
  // Each run's answers: its host's sources raced with the engine's own inbox, which its handle answers through.
  const inbox = createAnswerInbox();
  const answerSources = new Map<string, AnswerSource>();
  const machine = ralphMachine.provide({
    actors: {
      ...createRoundActors((runId) => runs.get(runId)),
      ...createGuardRailActors(options.journal),
      ...createEvaluatorActors((runId) => evaluations.get(runId), evaluatorWorkspaceWatch),
      awaitAnswer: fromPromise<AnswerOutcome, RalphQuestion>(({ input, signal }) =>
        (answerSources.get(input.runId) ?? inbox.source)(input, signal),
      ),
    },
  });

  function start(request: RalphRunRequest, startOptions: RalphStartOptions = {}): RalphRun {
    const runId = startOptions.resume?.runId ?? nanoid();
    if (startOptions.signal?.aborted) {
      // Cancelled before it began: nothing is started, not even the machine.
      const result = Promise.reject(
        new RalphError({ code: 'cancelled', message: WORKFLOW_CANCELLED }, { runId }),
      );
      return {
        runId,
        result,
        cancel() {},
        dispose() {},
        actor: null,
        usage: () => null,
        ...neverWaits(runId),
      };
    }

    let recording: ReturnType<typeof recorderFor> | undefined;
    if (startOptions.record !== undefined) {
      try {
        recording = recorderFor(startOptions.record, request, runId, startOptions.recordingHost);
      } catch (error) {
        const path = String(startOptions.record);
        return {
          runId,
          result: Promise.reject(recordingRefused(path, error)),
          cancel() {},
          dispose() {},
          actor: null,
          usage: () => null,
          ...neverWaits(runId),
        };
      }
    }
    const recorder = recording?.recorder;
    // The recording is written first, so a host's inspector that throws cannot cost it a line.
    const inspect =
      recorder === undefined
        ? hostInspector
        : {
            next(event: InspectionEvent) {
              recorder.inspect(event);
              hostInspector?.next?.(event);
            },
          };

    if (request.answers !== undefined) answerSources.set(runId, firstAnswer([request.answers, inbox.source]));
    runs.set(runId, runChildren(request.provider, request.config.terminationGraceMs, request.config.sandbox));
    if (request.config.evaluator !== undefined)
      evaluations.set(
        runId,
        runEvaluators(request.evaluator, request.config.terminationGraceMs, request.config.sandbox),
      );
    const input = machineInputOf(
      request,
      runId,
      maxTotalAgents,
      startOptions.resume?.point,
      startOptions.startedAt,
    );
    const clock = railClockOf(input.guardRails ?? guardRailsOf(request.config));
    const actor = createActor(machine, {
      input,
      ...(clock === undefined ? {} : { clock }),
      ...(inspect === undefined ? {} : { inspect }),
    });
    if (request.onProgress !== undefined) {
      const onProgress = guardedProgress(runId, request.onProgress);
      // One wildcard listener: everything the machine emits is a progress event (its `emitted` type), and one
      // listener a run costs less than one per event type, in time and in each suspended run's heap.
      actor.on('*', onProgress);
    }

    const result = new Promise<RalphEnvelope>((resolve, reject) => {
      actor.subscribe({
        complete: () => {
          const output = actor.getSnapshot().output;
          if (output?.ok) resolve(output.envelope);
          else if (output !== undefined) reject(new RalphError(output.failure, { runId }));
          else
            reject(
              new RalphError(
                { code: 'workflow-failed', message: workflowFailed('the run ended without an outcome') },
                { runId },
              ),
            );
        },
        error: (error) =>
          reject(
            new RalphError(
              {
                code: 'workflow-failed',
                message: workflowFailed(errorText(error)),
              },
              { runId, cause: error },
            ),
          ),
      });
    });

    const forget = () => {
      runs.delete(runId);
      evaluations.delete(runId);
      answerSources.delete(runId);
    };
    result.then(forget, forget);

    if (recording !== undefined) {
      // After the settling snapshot's line, which XState inspects after it settled the result.
      const close = () => {
        recording.recorder.close();
        recording.file?.close();
      };
      result.then(close, close);
    }

    // Only a run that can still be cancelled gets CANCEL: a settled one, or one already cancelling, ignores a late
    // cancel quietly (XState warns about events sent to a stopped actor), and no recording holds an event the
    // machine did not take.
    const cancel = () => {
      if (actor.getSnapshot().can({ type: 'CANCEL' })) actor.send({ type: 'CANCEL' });
    };
    startOptions.signal?.addEventListener('abort', cancel, { once: true });
    actor.start();

    let disposed = false;
    return {
      runId,
      result,
      cancel,
      dispose() {
        if (disposed) return;
        disposed = true;
        startOptions.signal?.removeEventListener('abort', cancel);
        cancel();
      },
      actor,
      usage: () => actor.getSnapshot().context.usage,
      answer: (text, by) => inbox.answer(runId, text, by),
      giveUp: (by) => inbox.giveUp(runId, by),
    };
  }

  return { maxTotalAgents, start };
}
