import { type ActorLogic, type AnyMachineSnapshot, fromPromise, type SnapshotFrom } from 'xstate';
import { serializeSnapshot, TestModel, type TestPath } from 'xstate/graph';
import type { AnswerOutcome, RalphQuestion } from '../../src/contract/answers.js';
import type { ChildRequest, VerifyOutcome } from '../../src/contract/types.js';
import type { RalphUsage } from '../../src/contract/usage.js';
import { stateKey } from '../../src/inspect/recording-format.js';
import {
  type ChildStarted,
  type EvaluationOutcome,
  type FingerprintRequest,
  type RalphEvent,
  type RalphMachineInput,
  type RoundOutcome,
  type RoundRef,
  ralphMachine,
  type VerifyRequest,
} from '../../src/machines/ralph.machine.js';
import { REPORT_VARIANTS, type ReportVariant } from './report-variants.js';
import { REJECT_VARIANT, VERDICT_VARIANTS } from './verdict-variants.js';

/** A snapshot of the run machine. */
export type RalphSnapshot = SnapshotFrom<typeof ralphMachine>;

/**
 * An event of the model. Besides the host's CANCEL, these are the events the machine's own actors and delays raise:
 * `xstate.done.actor.<id>` / `xstate.error.actor.<id>` with the payload of one child outcome, and the cancel deadline.
 * `variant` names the report a done event carries (two variants may share a payload shape, never a name).
 */
export interface ModelEvent {
  type: string;
  output?: unknown;
  error?: string;
  variant?: string;
  /** The child id CHILD_STARTED carries. */
  childId?: string;
}

/** The variant of a round's failure before its child started: the provider could not start it. */
export const START_FAILED = 'provider start';
/** The variant of a round's failure after its child started: the child failed before its report. */
export const CHILD_FAILED = 'child';

/**
 * The event types of the model, as the machine names them: each invoke's id is the name of the actor it runs, and
 * the cancel deadline is named after its delay and its state (statechart.test.ts pins that the machine takes
 * exactly these).
 */
export const EVENT = {
  cancel: 'CANCEL',
  // The round's one actor tells its child's start, then resolves with the report or fails: before CHILD_STARTED a
  // failure is the provider's (variant START_FAILED), after it the child's (variant CHILD_FAILED).
  childStarted: 'CHILD_STARTED',
  reported: 'xstate.done.actor.runRound',
  roundFailed: 'xstate.error.actor.runRound',
  childStopped: 'xstate.done.actor.awaitChildStopped',
  stopFailed: 'xstate.error.actor.awaitChildStopped',
  cancelDeadline: 'xstate.after.cancelDeadline.ralph.cancelling',
  // The guard rails' events: with every guard rail off, the machine takes none of them.
  // One round timer for the whole round, while its child starts and while it works.
  roundTimedOut: 'xstate.after.roundTimeout.ralph.running.round',
  wallClock: 'xstate.after.wallClock.ralph',
  roundStopDeadline: 'xstate.after.cancelDeadline.ralph.stoppingRound',
  verified: 'xstate.done.actor.runVerify',
  verifyCannotStart: 'xstate.error.actor.runVerify',
  verifyStopped: 'xstate.done.actor.awaitVerifyStopped',
  verifyStopFailed: 'xstate.error.actor.awaitVerifyStopped',
  fingerprinted: 'xstate.done.actor.fingerprintWorkspace',
  fingerprintFailed: 'xstate.error.actor.fingerprintWorkspace',
  limitWaitOver: 'xstate.after.limitWait.ralph.running.waitingForLimit',
  // The evaluator's events: a run without an evaluator takes none of them.
  evaluatorStarted: 'xstate.done.actor.startEvaluator',
  evaluatorStartFailed: 'xstate.error.actor.startEvaluator',
  verdict: 'xstate.done.actor.awaitVerdict',
  evaluatorFailed: 'xstate.error.actor.awaitVerdict',
  evaluatorStopped: 'xstate.done.actor.awaitEvaluatorStopped',
  evaluatorStopFailed: 'xstate.error.actor.awaitEvaluatorStopped',
  // The evaluation's own round timer, timed from its start, and the deadline of the evaluator it stopped.
  evaluationTimedOut: 'xstate.after.roundTimeout.ralph.running.evaluating',
  evaluatorStopDeadline: 'xstate.after.cancelDeadline.ralph.stoppingEvaluator',
  // Asking a person (--ask): the answer source resolves or fails, or the wait's own timer passes.
  answered: 'xstate.done.actor.awaitAnswer',
  answerSourceFailed: 'xstate.error.actor.awaitAnswer',
  answerWaitOver: 'xstate.after.answerWait.ralph.running.awaitingAnswer',
} as const;

/** The variant name of a round that ended on a usage limit (a done event whose outcome carries the limit). */
export const USAGE_LIMIT_VARIANT = 'usage limit';
/** What the model's usage-limited round says, and how long until its limit resets. */
export const ROUND_LIMIT = {
  detail:
    'mock-agent hit a usage or rate limit: usage limit reached; it resets at 2026-12-01T12:01:00.000Z (in 1m)',
  // Short beside the model's time limit (2h), which the simulated clock passes for real: no two timers race.
  retryInMs: 60_000,
};

/** The verify command of the model's verify variant, and how a run of it may end. */
export const VERIFY_ARGV = ['npm', 'test'];
/** What a verify command that cannot start dies of. */
export const VERIFY_START_ERROR = 'the verify command "npm" could not start: not found on PATH';
/** What a fingerprint that cannot be taken dies of. */
export const FINGERPRINT_ERROR = 'EACCES: permission denied, scandir';
/** The ways a verify command ends in the model, by name. */
export const VERIFY_OUTCOMES: readonly { name: string; outcome: VerifyOutcome }[] = [
  {
    name: 'passes',
    outcome: { exitCode: 0, signal: null, timedOut: false, durationMs: 2_000, outputTail: '12 passed' },
  },
  {
    name: 'fails',
    outcome: { exitCode: 1, signal: null, timedOut: false, durationMs: 2_000, outputTail: 'FAIL: 1 failed' },
  },
  {
    name: 'times out',
    outcome: { exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 600_000, outputTail: 'RUNS' },
  },
];

/** The fingerprint a workspace has after `round` when that round changed it. */
export const fingerprintAfter = (round: number): string => `fingerprint-after-round-${round}`;

/** What every round's child says it used in the model: a cost budget of the model is spent in whole rounds. */
export const ROUND_USAGE: RalphUsage = { costUsd: 1, inputTokens: 1_000, outputTokens: 100, turns: 2 };

/** What a provider says when it cannot start a child. */
export const START_ERROR = 'spawn mock-agent ENOENT';
/** What a child that fails before its report dies of. */
export const CHILD_ERROR = 'child exited with code 1';
/** What a host's own stop actor fails with (the bridge's never fails). */
export const STOP_ERROR = 'the host could not confirm that the child stopped';

/** The child id a provider gives the child of `round`. */
export const childIdOf = (round: number): string => `mock-child-${round}`;
/** The child id the evaluator provider gives the evaluator of `round`'s completion. */
export const evaluatorIdOf = (round: number): string => `mock-evaluator-${round}`;

/** What every evaluator says it used in the model: not a round's, so that a mix-up of the two shows. */
export const EVALUATOR_USAGE: RalphUsage = { costUsd: 0.5, inputTokens: 500, outputTokens: 50, turns: 1 };
/** What an evaluator provider says when it cannot start an evaluator. */
export const EVALUATOR_START_ERROR = 'spawn mock-evaluator ENOENT';
/** What an evaluator that fails before its verdict dies of. */
export const EVALUATOR_ERROR = 'evaluator exited with code 1';

/**
 * The reports a round's child hands back in a run with an evaluator or one that asks (--ask): one of each kind (every
 * report variant is walked in the runs without either, and the review depends on neither), so that the model stays
 * small.
 */
const EVALUATED_RUN_REPORTS = new Set([
  'continue',
  'complete',
  'blocked',
  'null',
  'complete without evidence',
  'complete one over the handoff cap',
]);

/** The report variants a round's child may hand back in a run (`fewer`: one with an evaluator or that asks). */
export const reportVariantsOf = (fewer: boolean): readonly ReportVariant[] =>
  fewer ? REPORT_VARIANTS.filter((v) => EVALUATED_RUN_REPORTS.has(v.name)) : REPORT_VARIANTS;

/**
 * The verdicts an evaluator may give: every variant while no completion was rejected yet; once one was, only the
 * same rejection and the accept again, so that the model stays finite and small (a later evaluation fails the same
 * ways as the first).
 */
export const verdictVariantsOf = (rejectedBefore: boolean) =>
  rejectedBefore
    ? VERDICT_VARIANTS.filter((v) => v.name === REJECT_VARIANT || v.name === 'accept')
    : VERDICT_VARIANTS;

/** Every event the model offers in a snapshot; `snapshot.can` filters out those the state does not take. */
export function offeredEvents(snapshot: RalphSnapshot): ModelEvent[] {
  return [
    { type: EVENT.cancel },
    { type: EVENT.childStarted, childId: childIdOf(snapshot.context.round) } satisfies ChildStarted &
      ModelEvent,
    // The same event type either way: which one the round is offered follows whether its child has started.
    snapshot.context.childId === null
      ? { type: EVENT.roundFailed, error: START_ERROR, variant: START_FAILED }
      : { type: EVENT.roundFailed, error: CHILD_ERROR, variant: CHILD_FAILED },
    // The round's report comes once its child started (the round box takes the event in `starting` too, but its
    // actor tells CHILD_STARTED first).
    ...(snapshot.context.childId === null ? [] : reportsOf(snapshot)),
    ...otherEvents(snapshot),
  ];
}

/** The reports a round whose child started is offered: every report variant of the run, and a usage limit. */
function reportsOf(snapshot: RalphSnapshot): ModelEvent[] {
  return [
    ...reportVariantsOf(
      snapshot.context.evaluation !== undefined ||
        snapshot.context.call.guardRails.waitForAnswersMs !== undefined,
    ).map((v) => ({
      type: EVENT.reported,
      output: { output: v.output, usage: ROUND_USAGE } satisfies RoundOutcome,
      variant: v.name,
    })),
    // At most one wait in a row, so that the model stays finite (each wait starts one more child).
    ...(snapshot.context.limitWaits < 1
      ? [
          {
            type: EVENT.reported,
            // The agent says what the limited round cost (Claude Code's error result carries it): it counts.
            output: { output: undefined, usage: ROUND_USAGE, limit: ROUND_LIMIT } satisfies RoundOutcome,
            variant: USAGE_LIMIT_VARIANT,
          },
        ]
      : []),
  ];
}

/** The events the model offers besides a round's own. */
function otherEvents(snapshot: RalphSnapshot): ModelEvent[] {
  return [
    { type: EVENT.limitWaitOver },
    { type: EVENT.childStopped },
    { type: EVENT.stopFailed, error: STOP_ERROR },
    { type: EVENT.cancelDeadline },
    { type: EVENT.roundTimedOut },
    { type: EVENT.wallClock },
    { type: EVENT.roundStopDeadline },
    ...VERIFY_OUTCOMES.map((v) => ({ type: EVENT.verified, output: v.outcome, variant: v.name })),
    { type: EVENT.verifyCannotStart, error: VERIFY_START_ERROR },
    { type: EVENT.verifyStopped },
    { type: EVENT.verifyStopFailed, error: STOP_ERROR },
    // The workspace as the last fingerprint found it, or changed by the round just ended.
    ...(snapshot.context.fingerprint === null
      ? []
      : [{ type: EVENT.fingerprinted, output: snapshot.context.fingerprint, variant: 'unchanged' }]),
    { type: EVENT.fingerprinted, output: fingerprintAfter(snapshot.context.round), variant: 'changed' },
    { type: EVENT.fingerprintFailed, error: FINGERPRINT_ERROR },
    ...(snapshot.context.evaluation === undefined ? [] : evaluatorEvents(snapshot)),
    ...(snapshot.context.call.guardRails.waitForAnswersMs === undefined ? [] : answerEvents()),
  ];
}

/** What an answer source that cannot put the question to a person fails with. */
export const ANSWER_SOURCE_ERROR = 'the answer folder could not be written: EACCES';
/** The answer of the model's short answer: it fits the handoff cap whole. */
export const SHORT_ANSWER = 'Use the mirror at registry.example.com';
/** An answer too long for the handoff cap: the handoff keeps what fits of it. */
export const LONG_ANSWER = `Use the mirror; ${'the proxy settings are in the wiki page on networking. '.repeat(8)}`;

/** The ways an answer source settles in the model, by name: a person's answer (two), a give-up, its own timeout. */
export const ANSWER_OUTCOMES: readonly { name: string; outcome: AnswerOutcome }[] = [
  { name: 'a short answer', outcome: { kind: 'answer', text: SHORT_ANSWER, by: 'terminal' } },
  { name: 'an answer over what the handoff holds', outcome: { kind: 'answer', text: LONG_ANSWER } },
  { name: 'a give-up', outcome: { kind: 'give-up', by: 'terminal' } },
  { name: "the source's own wait runs out", outcome: { kind: 'timed-out' } },
];

/** The answer events a run that asks is offered while it waits. */
const answerEvents = (): ModelEvent[] => [
  ...ANSWER_OUTCOMES.map((a) => ({ type: EVENT.answered, output: a.outcome, variant: a.name })),
  { type: EVENT.answerSourceFailed, error: ANSWER_SOURCE_ERROR },
  { type: EVENT.answerWaitOver },
];

/** The evaluator's events a run with an evaluator is offered. */
function evaluatorEvents(snapshot: RalphSnapshot): ModelEvent[] {
  const rejectedBefore = snapshot.context.evaluation?.last !== null;
  return [
    { type: EVENT.evaluatorStarted, output: { childId: evaluatorIdOf(snapshot.context.round) } },
    { type: EVENT.evaluatorStartFailed, error: EVALUATOR_START_ERROR },
    ...verdictVariantsOf(rejectedBefore).map((v) => ({
      type: EVENT.verdict,
      output: {
        output: v.output,
        usage: EVALUATOR_USAGE,
        changedFiles: v.changedFiles,
      } satisfies EvaluationOutcome,
      variant: v.name,
    })),
    { type: EVENT.evaluatorFailed, error: EVALUATOR_ERROR },
    { type: EVENT.evaluatorStopped },
    { type: EVENT.evaluatorStopFailed, error: STOP_ERROR },
    { type: EVENT.evaluationTimedOut },
    { type: EVENT.evaluatorStopDeadline },
  ];
}

const neverSettles = <TOutput, TInput>() => fromPromise<TOutput, TInput>(() => new Promise<never>(() => {}));

/**
 * The machine the model walks: the real config and implementations, with actors that never settle, so that the
 * model's events alone move it. (Graph traversal never starts the actors anyway; this makes sure of it.)
 */
export const modelMachine = ralphMachine.provide({
  actors: {
    runRound: neverSettles<RoundOutcome, ChildRequest>(),
    awaitChildStopped: neverSettles<void, RoundRef>(),
    runVerify: neverSettles<VerifyOutcome, VerifyRequest>(),
    awaitVerifyStopped: neverSettles<void, RoundRef>(),
    fingerprintWorkspace: neverSettles<string, FingerprintRequest>(),
    startEvaluator: neverSettles<ChildStarted, ChildRequest>(),
    awaitVerdict: neverSettles<EvaluationOutcome, RoundRef>(),
    awaitEvaluatorStopped: neverSettles<void, RoundRef>(),
    awaitAnswer: neverSettles<AnswerOutcome, RalphQuestion>(),
  },
});

/** Whether the machine in `snapshot` takes `event`, guards included. */
export const takes = (snapshot: RalphSnapshot, event: ModelEvent): boolean =>
  // A settled run takes nothing: `can` would still find the root's own wall-clock transition, but a done actor
  // has no timers left to fire it.
  snapshot.status === 'active' &&
  // The machine's declared events are the host's only; the actor events are internal but take the same path.
  snapshot.can(event as unknown as RalphEvent);

/**
 * A state is the value and the whole context. A final state also remembers the event that led to it and where
 * from, so that transitions which end in equal snapshots (a stopped child, a failed stop, the deadline) each get
 * a path of their own.
 */
export function serializeState(
  snapshot: AnyMachineSnapshot,
  event: { type: string } | undefined,
  previous?: AnyMachineSnapshot,
): string {
  const via =
    snapshot.status === 'done' && event !== undefined
      ? ` via ${JSON.stringify(event)} from ${JSON.stringify(previous?.value)}`
      : '';
  return `${serializeSnapshot(snapshot)}${via}`;
}

/** The test model of one machine input. */
export function createRalphModel(input: RalphMachineInput) {
  return new TestModel<RalphSnapshot, ModelEvent, RalphMachineInput>(
    modelMachine as unknown as ActorLogic<RalphSnapshot, ModelEvent, RalphMachineInput>,
    {
      input,
      events: offeredEvents,
      filterEvents: takes,
      serializeState,
      // The model at cap 3 takes a few hundred steps to walk; a machine that never stops starting rounds fails here.
      limit: 2_000,
    },
  );
}

/** One path of the model: the snapshots the machine must go through, and the events that take it there. */
export type RalphPath = TestPath<RalphSnapshot, ModelEvent>;

/** The shortest path to every state of the model (paths that are prefixes of others are left out). */
export function pathsOf(input: RalphMachineInput): RalphPath[] {
  return createRalphModel(input).getShortestPaths();
}

/** A short, readable name of an event of a path. */
export function describeEvent(event: ModelEvent): string {
  switch (event.type) {
    case 'xstate.init':
      return 'call';
    case EVENT.cancel:
      return 'CANCEL';
    case EVENT.childStarted:
      return 'child started';
    case EVENT.roundFailed:
      return event.variant === START_FAILED ? 'provider fails to start' : 'child fails';
    case EVENT.reported:
      return `report: ${event.variant}`;
    case EVENT.childStopped:
      return 'child stops';
    case EVENT.stopFailed:
      return 'stop fails';
    case EVENT.cancelDeadline:
      return 'cancel deadline passes';
    case EVENT.roundTimedOut:
      return 'round timeout';
    case EVENT.wallClock:
      return 'time limit runs out';
    case EVENT.roundStopDeadline:
      return 'stop deadline passes';
    case EVENT.verified:
      return `verify ${event.variant}`;
    case EVENT.verifyCannotStart:
      return 'verify cannot start';
    case EVENT.verifyStopped:
      return 'verify stops';
    case EVENT.verifyStopFailed:
      return 'verify stop fails';
    case EVENT.fingerprinted:
      return `workspace ${event.variant}`;
    case EVENT.fingerprintFailed:
      return 'fingerprint fails';
    case EVENT.limitWaitOver:
      return 'the limit resets';
    case EVENT.evaluatorStarted:
      return 'evaluator started';
    case EVENT.evaluatorStartFailed:
      return 'evaluator fails to start';
    case EVENT.verdict:
      return `verdict: ${event.variant}`;
    case EVENT.evaluatorFailed:
      return 'evaluator fails';
    case EVENT.evaluatorStopped:
      return 'evaluator stops';
    case EVENT.evaluatorStopFailed:
      return 'evaluator stop fails';
    case EVENT.evaluationTimedOut:
      return 'evaluation times out';
    case EVENT.evaluatorStopDeadline:
      return 'evaluator stop deadline passes';
    case EVENT.answered:
      return `answer: ${event.variant}`;
    case EVENT.answerSourceFailed:
      return 'the answer source fails';
    case EVENT.answerWaitOver:
      return 'the answer wait runs out';
    default:
      return event.type;
  }
}

/** A readable name of a path: its events, then the state it ends in. */
export function describePath(path: RalphPath): string {
  const events = path.steps.map((step) => describeEvent(step.event)).join(' → ');
  return `${events} ⇒ ${stateKey(path.state.value)}`;
}
