import { assign, emit, fromPromise, setup } from 'xstate';
import {
  isNonEmptyObjective,
  isValidMaxRounds,
  objectiveOf,
  requestedMaxRoundsOf,
  resolveMaxRounds,
} from '../contract/call.js';
import { MAX_DURATION_MS } from '../contract/duration.js';
import { errorText } from '../contract/error-text.js';
import type { RalphFailure } from '../contract/errors.js';
import {
  costBudgetNeedsCostReports,
  fingerprintFailed,
  roundTimedOut,
  timeRanOutBeforeRounds,
  timeRanOutInRound,
  timeRanOutWaitingForLimit,
  verifyCouldNotStart,
} from '../contract/guard-rail-messages.js';
import {
  CALLING_AGENT_MISSING,
  childFailureMessage,
  MAX_ROUNDS_INVALID,
  maxRoundsExceedsCeiling,
  OBJECTIVE_EMPTY,
  providerInheritsParentContext,
  providerLacksStructuredOutput,
  providerNotRegistered,
  resumeRefused,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../contract/messages.js';
import { renderRoundPrompt } from '../contract/prompt.js';
import { reportJsonSchemaCopy } from '../contract/round-report.js';
import { type ReportReview, reviewReport } from '../contract/round-report-review.js';
import type {
  AgentRef,
  ChildRequest,
  GuardRails,
  RalphEnvelope,
  RalphProgressEvent,
  RalphReport,
  RalphResultStatus,
  VerifyOutcome,
  VerifySpec,
} from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf, usageOfFailure } from '../contract/usage.js';
import { verifyFailureHandoff } from '../contract/verify-handoff.js';

/** Time allowed, past the termination grace, for a SIGKILLed child to be reaped before the run stops waiting. */
export const KILL_MARGIN_MS = 1_000;

/** What the configured provider declared, resolved immediately before the call. */
export interface ProviderSnapshot {
  name: string;
  registered: boolean;
  structuredOutput: boolean;
  inheritsParentContext: boolean;
  /** Its children say what each round cost (absent: they do not), so a cost budget can hold. */
  reportsCost?: boolean;
}

/** Everything a run starts from: plain data, so a run can be recorded and replayed. */
export interface RalphMachineInput {
  runId: string;
  /** The call's arguments exactly as the model sent them. */
  args: unknown;
  /** The calling agent, or null when the call has none. */
  agent: AgentRef | null;
  provider: ProviderSnapshot;
  /** Deployment default and ceiling of a call's maxRounds. */
  maxRounds: number;
  maxHandoffChars: number;
  terminationGraceMs: number;
  /** The engine's own ceiling on children in one run. */
  maxTotalAgents: number;
  /** Where a resumed run picks up (absent or null: a new run from round 1). */
  resume?: RalphResumePoint | null;
  /** The opt-in guard rails; absent or all null, the run is exactly the reference's. */
  guardRails?: GuardRails;
}

/**
 * Where a resumed run picks up: the rounds finished before (their last accepted report is the handoff) and the
 * children started so far. The next round is `round + 1`, started with a fresh child; a round that was running
 * when the host died is run again.
 */
export interface RalphResumePoint {
  /** Rounds finished with an accepted report (0: none; the run starts again at round 1). */
  round: number;
  /** The last accepted report, or null when no round finished. */
  handoff: RalphReport | null;
  /** Children started before, the interrupted round's included: the envelope counts every child of the run. */
  agentsStarted: number;
  /**
   * What the run's agents said they used before (the recorded total), so the cost budget and every total go on from
   * it; absent or null: nothing was said. The interrupted round's agent is not in it: its word was never heard.
   */
  usage?: RalphUsage | null;
  /**
   * Rounds whose spend is unknown, so not in `usage`: each was going on when a host of the run stopped (the round
   * being run again, and any a resume before it ran again). Absent: none.
   */
  uncountedRounds?: readonly number[];
}

/** Every guard rail off. */
export const NO_GUARD_RAILS: GuardRails = Object.freeze({
  roundTimeoutMs: null,
  maxWallTimeMs: null,
  verify: null,
  maxIdleRounds: null,
});

/** Why a round's child is being stopped by a guard rail. */
export type RoundStopReason = 'round-timeout' | 'time-limit';

/** What `awaitReport` resolves with: the child's raw structured output, and what it said it used (null: nothing). */
export interface RoundOutcome {
  output: unknown;
  usage: RalphUsage | null;
  /** Set when the round ended on a usage or rate limit instead of a report. */
  limit?: RoundLimit;
}

/** A round that ended on a usage or rate limit: what the agent said, and how long until the limit resets. */
export interface RoundLimit {
  /** The child failure's detail: the agent's words and when the limit resets. */
  detail: string;
  /** Time until the reset, from when the limit was recognised (ms); null when the agent gave none. */
  retryInMs: number | null;
}

/** The margin added to a limit's reset time before the round runs again. */
export const LIMIT_MARGIN_MS = 1_000;
/** The first wait for a limit with no reset time; each further one in a row doubles, up to LIMIT_BACKOFF_MAX_MS. */
export const LIMIT_BACKOFF_MS = 60_000;
/** The longest wait for a limit with no reset time: 30 minutes. */
export const LIMIT_BACKOFF_MAX_MS = 1_800_000;

/** How long to wait for a limit: its reset plus the margin, or the backoff of the `waits`-th wait in a row. */
export function limitWaitMs(limit: RoundLimit, waits: number): number {
  const wait =
    limit.retryInMs !== null
      ? limit.retryInMs + LIMIT_MARGIN_MS
      : Math.min(LIMIT_BACKOFF_MS * 2 ** Math.max(0, waits - 1), LIMIT_BACKOFF_MAX_MS);
  return Math.min(wait, MAX_DURATION_MS);
}

/** What a run was started with: fixed for the whole run, never assigned. */
export interface RalphCallContext {
  objectiveInput: unknown;
  requestedMaxRounds: unknown;
  agent: AgentRef | null;
  provider: ProviderSnapshot;
  deploymentMaxRounds: number;
  maxHandoffChars: number;
  terminationGraceMs: number;
  maxTotalAgents: number;
  /** The resume point of a resumed run; null for a new run. */
  resumeFrom: RalphResumePoint | null;
  guardRails: GuardRails;
}

/**
 * The run's context: serializable, no functions, promises or controllers. What never changes is nested in `call`,
 * so the top level stays at most 19 keys: XState builds each new context with `Object.assign({}, context, update)`,
 * and V8 turns an object given more properties that way into a slow dictionary (≈ 5 µs a copy at 27 keys against
 * 0.2 µs at 12, measured alone; see BENCHMARKS.md, target 5).
 */
export interface RalphContext {
  runId: string;
  /** The call as the run was started with it. */
  call: RalphCallContext;
  /** The accepted objective ('' until the call is accepted). */
  objective: string;
  /** The resolved round cap (0 until the call is accepted). */
  maxRounds: number;
  /** The current round; also the number of rounds started. */
  round: number;
  agentsStarted: number;
  childId: string | null;
  /** The last validated report: the handoff to the next round. */
  handoff: RalphReport | null;
  /** The verdict on this round's report, once it came (null until then). */
  review: ReportReview | null;
  outcome: RalphOutput | null;
  /** The wall-clock budget is spent: no round may start. */
  outOfTime: boolean;
  /** Why the running round's child is being stopped (null unless it is). */
  stopReason: RoundStopReason | null;
  /** The workspace fingerprint after the last round (or before round 1); null until one was taken. */
  fingerprint: string | null;
  /** Consecutive rounds, up to now, that left the workspace unchanged. */
  idleRounds: number;
  /** What this round's agent said it used, once its report came (null until then, or when it said nothing). */
  roundUsage: RalphUsage | null;
  /** What the run's rounds said they used, summed (null while none said anything). */
  usage: RalphUsage | null;
  /** Waits for a usage limit since the last accepted report (the backoff of a limit with no reset time doubles). */
  limitWaits: number;
  /** How long the current wait for a usage limit lasts (ms); null when the run is not waiting. */
  limitWaitMs: number | null;
}

/** How a run ended: the envelope, or the failure, refusal or cancellation. */
export type RalphOutput = { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };

/** Events a host sends to a run. */
export type RalphEvent = { type: 'CANCEL' };

/** What `startChild` resolves with once the provider has started the child. */
export interface ChildStarted {
  childId: string;
}

/** What a host may read off a run's snapshot with `snapshot.hasTag(tag)` (each is described on ralphMachine). */
export type RalphTag = 'childRunning' | 'settled' | 'succeeded' | 'failure';

/** Identifies one round's child to the actors that wait on it. */
export interface RoundRef {
  runId: string;
  round: number;
}

/** What the verify actor runs: the run's verify command, in the workspace. */
export interface VerifyRequest {
  runId: string;
  round: number;
  cwd: string;
  verify: VerifySpec;
  terminationGraceMs: number;
}

/** What the fingerprint actor reads: the workspace. */
export interface FingerprintRequest {
  runId: string;
  round: number;
  cwd: string;
}

const notProvided = (name: string) => () => {
  throw new Error(`ralphMachine actor "${name}" was not provided; run the machine through createRalphEngine`);
};

/**
 * The review in the context, as the verdict the guard of the branch being taken has just read; anything else would
 * be a fault of the machine itself, not of the child.
 */
function reviewAs<V extends ReportReview['verdict']>(
  review: ReportReview | null,
  verdict: V,
): Extract<ReportReview, { verdict: V }> {
  if (review?.verdict !== verdict)
    throw new Error(`ralphMachine: expected a ${verdict} review, found ${review?.verdict ?? 'none'}`);
  return review as Extract<ReportReview, { verdict: V }>;
}

/**
 * What is wrong with a resume point against the accepted call, or undefined: the next round must fit under the cap,
 * and the handoff must be a report the rules accept (a hand-edited recording is not trusted).
 */
function resumePointProblem(context: RalphContext): string | undefined {
  const from = context.call.resumeFrom;
  if (from === null) return undefined;
  const cap = resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds);
  if (!Number.isSafeInteger(from.round) || from.round < 0 || from.round >= cap)
    return `its finished rounds (${String(from.round)}) must be a whole number below the round cap ${cap}`;
  if (!Number.isSafeInteger(from.agentsStarted) || from.agentsStarted < from.round)
    return `its children started (${String(from.agentsStarted)}) must be a whole number of at least its finished rounds`;
  if ((from.round === 0) !== (from.handoff === null))
    return from.round === 0 ? 'a run with no finished round has no handoff' : 'its last handoff is missing';
  const uncounted = from.uncountedRounds ?? [];
  if (
    !Array.isArray(uncounted) ||
    !uncounted.every((n) => Number.isSafeInteger(n) && n >= 1 && n <= from.round + 1)
  )
    return `its uncounted rounds (${String(uncounted)}) must be round numbers up to the round it runs again`;
  if (from.handoff === null) return undefined;
  const review = reviewReport(from.handoff, context.call.maxHandoffChars);
  if (review.verdict !== 'accepted') return 'its last handoff is not a report the rules accept';
  if (review.report.status !== 'continue')
    return `its last handoff is ${review.report.status}: the run settled`;
  return undefined;
}

const fail = (failure: RalphFailure): { outcome: RalphOutput } => ({ outcome: { ok: false, failure } });

/**
 * The run settled with an envelope: the reference's fields, then what a guard rail adds (`limit`, `verifiedBy`), so
 * a reference run's envelope is byte for byte the reference's.
 */
const settled = (
  context: RalphContext,
  status: RalphResultStatus,
  added: Pick<RalphEnvelope['result'], 'limit' | 'verifiedBy'> = {},
): { outcome: RalphOutput } => ({
  outcome: {
    ok: true,
    envelope: {
      runId: context.runId,
      agentsStarted: context.agentsStarted,
      result: { status, rounds: context.round, report: context.handoff as RalphReport, ...added },
    },
  },
});

/** The run's cost budget (USD), or null when it has none. */
const costBudgetOf = (context: RalphContext): number | null => context.call.guardRails.maxCostUsd ?? null;

/** What the run's rounds said they cost so far (USD). */
const spentUsdOf = (context: RalphContext): number => context.usage?.costUsd ?? 0;

/** The rounds whose spend a resumed run could not count (empty for a run that was never resumed). */
const uncountedRoundsOf = (context: RalphContext): readonly number[] =>
  context.call.resumeFrom?.uncountedRounds ?? [];

/**
 * The ralph run. A call is checked in `validating` (arguments, ceilings, calling agent, provider capabilities:
 * the first failing check speaks) and refused without starting anything. An accepted call runs rounds: `round`
 * asks the provider for one fresh child, `awaitingReport` waits for its structured report and reviews it once,
 * and in `reviewingReport` that review and the round cap decide whether another round starts or the run settles
 * as complete, blocked or budget-limited. A provider that cannot start, or a report that is missing, malformed or
 * over the handoff cap, fails the workflow; a child that fails before reporting fails the run with the last good
 * handoff. Nothing is retried. Cancellation is a state: it aborts the child and waits, bounded, until the child
 * stopped.
 *
 * The guard rails (`input.guardRails`) are opt-in; with all of them off every one of their guards is false and
 * no timer of theirs takes a transition, so the run is exactly the reference's:
 * - Round timeout: `round` and `awaitingReport` each have a guarded delayed transition (`roundTimeout`, so
 *   a child gets the timeout to start and again to report) to `stoppingRound`, which stops the child like a
 *   cancellation and then, through `roundStopped`, fails the run with the reference's child-failure message.
 * - Wall clock: a delayed transition of the root (`xstate.after.wallClock.ralph`), timed from the run's start,
 *   marks the budget spent; `round` and `awaitingReport` then leave for `stoppingRound` at once, and no round
 *   starts after it (`nextRound` checks it after a verify command or a fingerprint; a report cannot arrive once
 *   it ran out, since the round is stopped at once). The run ends budget-limited with the last good report,
 *   or failed when no round had reported yet (an envelope needs a report). A verify command or a fingerprint that
 *   is running is not interrupted: each is bounded on its own, and the next gate settles the run.
 * - Verify: a complete report goes to `verifying`, which runs the command; exit 0 completes the run, anything
 *   else hands the report and the failure to the next round (within the round cap), and a command that cannot
 *   start fails the workflow. CANCEL there waits in `cancellingVerify` until the command has stopped.
 * - Cost: with a cost budget (`guardRails.maxCostUsd`) a provider that does not declare `reportsCost` is refused in
 *   `validating`; once the cost the rounds' agents reported has reached the budget, `reviewingReport` (after the
 *   round cap) and `nextRound` settle the run budget-limited instead of starting a round (`costBudgetIsSpent`).
 *   A round that is running is never stopped for cost: what it cost is known only once it reported. What a round's
 *   agent said it spent counts whether or not its report is accepted (`recordUsage` on a malformed report, a usage
 *   limit and a child failure too: a failed round's usage travels on its error).
 * - Usage limits: a round whose agent hit a usage or rate limit (`awaitReport` resolves with its `limit`) fails
 *   the run as that round's child failure, the limit and its reset in the detail; with `guardRails.waitOnLimits`
 *   it goes to `waitingForLimit` instead, which runs the round again after the reset (a delayed transition).
 * - Idle: `fingerprinting` fingerprints the workspace before round 1 and after every round that leaves work
 *   remaining (a rejected completion included); that many unchanged rounds in a row end the run budget-limited.
 *
 * Every invoke has a literal id, the name of the actor it runs, so the events a run takes read
 * `xstate.done.actor.startChild`, `xstate.error.actor.awaitReport`, `xstate.done.actor.awaitChildStopped` and so
 * on, in a recording as in the inspector; the cancel deadline is `xstate.after.cancelDeadline.ralph.cancelling`.
 * Each state says why it exists in its `description`. Tags tell a host what it may rely on:
 * - `childRunning` (`round`, `awaitingReport`, `cancelling`, `stoppingRound`): a child may be running, being started, working or
 *   being stopped; the run must be cancelled, not dropped, while this holds.
 * - `settled` (every final state): the run is over and its outcome is in the output; no child of it still runs
 *   (unless one that ignored its abort was abandoned past the cancel deadline).
 * - `succeeded` (`complete`, `blocked`, `budgetLimited`): the run ended with an envelope (`output.ok`); a blocked or
 *   budget-limited run succeeded as a run, whatever its worker reported.
 * - `failure` (`failed`, `rejected`, `cancelled`): the run ended with a failure (`output.failure`): a refused call,
 *   a workflow or child failure, or a cancellation.
 */
export const ralphMachine = setup({
  types: {
    context: {} as RalphContext,
    input: {} as RalphMachineInput,
    events: {} as RalphEvent,
    output: {} as RalphOutput,
    emitted: {} as RalphProgressEvent,
    tags: {} as RalphTag,
  },
  actors: {
    /** Starts one fresh child through the provider; rejects on a provider-start failure. */
    startChild: fromPromise<ChildStarted, ChildRequest>(notProvided('startChild')),
    /** Resolves with the child's raw structured output and its usage; rejects on an ordinary child failure. */
    awaitReport: fromPromise<RoundOutcome, RoundRef>(notProvided('awaitReport')),
    /** Settles once a cancelled round's child has stopped. */
    awaitChildStopped: fromPromise<void, RoundRef>(notProvided('awaitChildStopped')),
    /** Runs the verify command; resolves with how it ended, rejects when it cannot start; stops it on abort. */
    runVerify: fromPromise<VerifyOutcome, VerifyRequest>(notProvided('runVerify')),
    /** Settles once an aborted verify command's process group is gone. */
    awaitVerifyStopped: fromPromise<void, RoundRef>(notProvided('awaitVerifyStopped')),
    /** Resolves with a content fingerprint of the workspace. */
    fingerprintWorkspace: fromPromise<string, FingerprintRequest>(notProvided('fingerprintWorkspace')),
  },
  guards: {
    objectiveIsEmpty: ({ context }) => !isNonEmptyObjective(context.call.objectiveInput),
    maxRoundsIsInvalid: ({ context }) => !isValidMaxRounds(context.call.requestedMaxRounds),
    maxRoundsExceedsDeploymentCeiling: ({ context }) =>
      resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds) >
      context.call.deploymentMaxRounds,
    maxRoundsExceedsEngineCeiling: ({ context }) =>
      resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds) >
      context.call.maxTotalAgents,
    callingAgentIsMissing: ({ context }) => context.call.agent === null,
    providerIsNotRegistered: ({ context }) => !context.call.provider.registered,
    providerLacksStructuredOutput: ({ context }) => !context.call.provider.structuredOutput,
    providerInheritsParentContext: ({ context }) => context.call.provider.inheritsParentContext,
    resumePointIsInvalid: ({ context }) => resumePointProblem(context) !== undefined,
    isResuming: ({ context }) => context.call.resumeFrom !== null,
    reportIsMissing: (_, params: { review: ReportReview | null }) => params.review?.verdict === 'missing',
    reportIsMalformed: (_, params: { review: ReportReview | null }) => params.review?.verdict === 'malformed',
    reportExceedsHandoffCap: (_, params: { review: ReportReview | null }) =>
      params.review?.verdict === 'oversized',
    reportIsComplete: (_, params: { review: ReportReview | null }) =>
      params.review?.verdict === 'accepted' && params.review.report.status === 'complete',
    reportIsBlocked: (_, params: { review: ReportReview | null }) =>
      params.review?.verdict === 'accepted' && params.review.report.status === 'blocked',
    roundCapReached: (_, params: { round: number; maxRounds: number }) => params.round >= params.maxRounds,
    roundTimeoutIsSet: ({ context }) => context.call.guardRails.roundTimeoutMs !== null,
    wallClockIsRunning: ({ context }) => context.call.guardRails.maxWallTimeMs !== null && !context.outOfTime,
    timeBudgetIsSpent: ({ context }) => context.outOfTime,
    timeRanOutBeforeAnyReport: ({ context }) => context.outOfTime && context.handoff === null,
    completionNeedsVerifying: ({ context }, params: { review: ReportReview | null }) =>
      context.call.guardRails.verify !== null &&
      params.review?.verdict === 'accepted' &&
      params.review.report.status === 'complete',
    verifyPassed: (_, params: { outcome: VerifyOutcome }) =>
      params.outcome.exitCode === 0 && !params.outcome.timedOut,
    idleWatchIsOn: ({ context }) => context.call.guardRails.maxIdleRounds !== null,
    idleLimitReached: ({ context }, params: { fingerprint: string }) =>
      context.round > 0 &&
      params.fingerprint === context.fingerprint &&
      context.idleRounds + 1 >= (context.call.guardRails.maxIdleRounds ?? Number.POSITIVE_INFINITY),
    workspaceUnchanged: ({ context }, params: { fingerprint: string }) =>
      context.round > 0 && params.fingerprint === context.fingerprint,
    stoppedForRoundTimeout: ({ context }) => context.stopReason === 'round-timeout',
    roundHitLimitAndWaits: ({ context }, params: { limit: RoundLimit | undefined }) =>
      params.limit !== undefined && context.call.guardRails.waitOnLimits === true,
    roundHitLimit: (_, params: { limit: RoundLimit | undefined }) => params.limit !== undefined,
    costBudgetLacksCostReports: ({ context }) =>
      costBudgetOf(context) !== null && context.call.provider.reportsCost !== true,
    costBudgetIsSpent: ({ context }) => {
      const budget = costBudgetOf(context);
      return budget !== null && spentUsdOf(context) >= budget;
    },
  },
  actions: {
    refuse: assign((_, params: { message: string }) => fail({ code: 'refused', message: params.message })),
    acceptCall: assign(({ context }) => ({
      objective: context.call.objectiveInput as string,
      maxRounds: resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds),
    })),
    restoreProgress: assign(({ context }) => {
      const from = context.call.resumeFrom as RalphResumePoint;
      // What the rounds before said they used goes on being counted (read, not trusted: a recording is a file).
      return {
        round: from.round,
        handoff: from.handoff,
        agentsStarted: from.agentsStarted,
        usage: usageOf(from.usage),
      };
    }),
    beginRound: assign(({ context }) => ({
      round: context.round + 1,
      childId: null,
      review: null,
      roundUsage: null,
    })),
    announceRound: emit(({ context }) => ({
      type: 'round-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
    })),
    recordChildStarted: assign(({ context }, params: { childId: string }) => ({
      agentsStarted: context.agentsStarted + 1,
      childId: params.childId,
    })),
    announceChild: emit(({ context }, params: { childId: string }) => ({
      type: 'child-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      childId: params.childId,
    })),
    failProviderStart: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(
          `subagent provider "${context.call.provider.name}" failed to start round ${context.round}: ${errorText(params.error)}`,
        ),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    failChild: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'child-failed',
        message: childFailureMessage(context.round, context.handoff),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    reviewReport: assign(({ context }, params: { output: unknown }) => ({
      review: reviewReport(params.output, context.call.maxHandoffChars),
    })),
    recordUsage: assign(({ context }, params: { usage: RalphUsage | null }) => ({
      roundUsage: params.usage,
      usage: addUsage(context.usage, params.usage),
    })),
    failMissingReport: assign(({ context }, params: { problem: string | undefined }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(`round ${context.round} child finished without a structured report`),
        round: context.round,
        lastHandoff: context.handoff,
        ...(params.problem === undefined ? {} : { detail: params.problem }),
      }),
    ),
    failMalformedReport: assign(({ context }, params: { problem: string }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(`round ${context.round} report is malformed: ${params.problem}`),
        round: context.round,
        lastHandoff: context.handoff,
        detail: params.problem,
      }),
    ),
    failOversizedReport: assign(({ context }, params: { size: number }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(
          `round ${context.round} report is ${params.size} characters, over the handoff cap of ${context.call.maxHandoffChars}`,
        ),
        round: context.round,
        lastHandoff: context.handoff,
      }),
    ),
    acceptReport: assign((_, params: { report: RalphReport }) => ({ handoff: params.report, limitWaits: 0 })),
    failUsageLimit: assign(({ context }, params: { limit: RoundLimit }) =>
      fail({
        code: 'child-failed',
        message: childFailureMessage(context.round, context.handoff),
        round: context.round,
        lastHandoff: context.handoff,
        detail: params.limit.detail,
      }),
    ),
    recordLimitWait: assign(({ context }, params: { limit: RoundLimit }) => ({
      limitWaits: context.limitWaits + 1,
      limitWaitMs: limitWaitMs(params.limit, context.limitWaits + 1),
    })),
    announceLimitWait: emit(({ context }, params: { limit: RoundLimit }) => ({
      type: 'limit-wait-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      waitMs: context.limitWaitMs as number,
      detail: params.limit.detail,
    })),
    // The round is run again: it is started once more under its own number, so the wait costs no round of the cap.
    repeatRound: assign(({ context }) => ({ round: context.round - 1, limitWaitMs: null })),
    // Usage is added only when an agent said it, so a run whose agents say nothing emits the reference's event.
    announceReport: emit(({ context }) => ({
      type: 'report-accepted' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      report: context.handoff as RalphReport,
      ...(context.roundUsage === null ? {} : { usage: context.roundUsage }),
      ...(context.usage === null ? {} : { totalUsage: context.usage }),
    })),
    settle: assign(({ context }, params: { status: RalphResultStatus }) => settled(context, params.status)),
    // The guard rails' envelopes add one field after the reference's, so a reference run's envelope is unchanged.
    // A round stopped by the time limit, or waiting out a usage limit, is counted in `rounds` but never reported:
    // the limit names it, so that no host mistakes the last report for that round's.
    settleTimeLimited: assign(({ context }) =>
      settled(context, 'budget-limited', {
        limit: {
          kind: 'time',
          maxWallTimeMs: context.call.guardRails.maxWallTimeMs as number,
          ...(context.stopReason === 'time-limit' || context.limitWaitMs !== null
            ? { unfinishedRound: context.round }
            : {}),
        },
      }),
    ),
    settleIdleLimited: assign(({ context }) =>
      settled(context, 'budget-limited', {
        limit: { kind: 'idle', maxIdleRounds: context.call.guardRails.maxIdleRounds as number },
      }),
    ),
    settleCostLimited: assign(({ context }) =>
      settled(context, 'budget-limited', {
        limit: {
          kind: 'cost',
          maxCostUsd: costBudgetOf(context) as number,
          spentUsd: spentUsdOf(context),
          ...(uncountedRoundsOf(context).length === 0
            ? {}
            : { uncountedRounds: [...uncountedRoundsOf(context)] }),
        },
      }),
    ),
    settleVerified: assign(({ context }) =>
      settled(context, 'complete', { verifiedBy: [...(context.call.guardRails.verify as VerifySpec).argv] }),
    ),
    markOutOfTime: assign({ outOfTime: true }),
    announceTimeLimit: emit(({ context }) => ({
      type: 'time-limit-reached' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      maxWallTimeMs: context.call.guardRails.maxWallTimeMs as number,
    })),
    stopRound: assign((_, params: { reason: RoundStopReason }) => ({ stopReason: params.reason })),
    announceRoundTimedOut: emit(({ context }) => ({
      type: 'round-timed-out' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      roundTimeoutMs: context.call.guardRails.roundTimeoutMs as number,
    })),
    failRoundTimedOut: assign(({ context }) =>
      fail({
        code: 'child-failed',
        message: childFailureMessage(context.round, context.handoff),
        round: context.round,
        lastHandoff: context.handoff,
        detail: roundTimedOut(context.round, context.call.guardRails.roundTimeoutMs as number),
      }),
    ),
    failTimeRanOutInRound: assign(({ context }) =>
      fail({
        code: 'child-failed',
        message: childFailureMessage(context.round, context.handoff),
        round: context.round,
        lastHandoff: context.handoff,
        detail: timeRanOutInRound(context.round, context.call.guardRails.maxWallTimeMs as number),
      }),
    ),
    failTimeRanOutBeforeRounds: assign(({ context }) => {
      const detail = timeRanOutBeforeRounds(context.call.guardRails.maxWallTimeMs as number);
      return fail({
        code: 'workflow-failed',
        message: workflowFailed(detail),
        round: context.round,
        lastHandoff: context.handoff,
        detail,
      });
    }),
    failTimeRanOutWaiting: assign(({ context }) => {
      const detail = timeRanOutWaitingForLimit(
        context.round,
        context.call.guardRails.maxWallTimeMs as number,
      );
      return fail({
        code: 'workflow-failed',
        message: workflowFailed(detail),
        round: context.round,
        lastHandoff: context.handoff,
        detail,
      });
    }),
    announceVerifyStarted: emit(({ context }) => ({
      type: 'verify-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      command: [...(context.call.guardRails.verify as VerifySpec).argv],
    })),
    announceVerifyFinished: emit(({ context }, params: { outcome: VerifyOutcome; passed: boolean }) => ({
      type: 'verify-finished' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      command: [...(context.call.guardRails.verify as VerifySpec).argv],
      passed: params.passed,
      exitCode: params.outcome.exitCode,
      signal: params.outcome.signal,
      timedOut: params.outcome.timedOut,
      durationMs: params.outcome.durationMs,
    })),
    handOffVerifyFailure: assign(({ context }, params: { outcome: VerifyOutcome }) => ({
      handoff: verifyFailureHandoff(
        context.handoff as RalphReport,
        context.call.guardRails.verify as VerifySpec,
        params.outcome,
        context.call.maxHandoffChars,
      ),
    })),
    failVerifyStart: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(
          verifyCouldNotStart(
            context.round,
            (context.call.guardRails.verify as VerifySpec).argv,
            errorText(params.error),
          ),
        ),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    recordFingerprint: assign(({ context }, params: { fingerprint: string }) => ({
      fingerprint: params.fingerprint,
      idleRounds:
        context.round > 0 && params.fingerprint === context.fingerprint ? context.idleRounds + 1 : 0,
    })),
    announceIdleRound: emit(({ context }) => ({
      type: 'workspace-unchanged' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      idleRounds: context.idleRounds,
      maxIdleRounds: context.call.guardRails.maxIdleRounds as number,
    })),
    failFingerprint: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(fingerprintFailed(context.round, errorText(params.error))),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    settleCancelled: assign(({ context }) =>
      fail({
        code: 'cancelled',
        message: WORKFLOW_CANCELLED,
        // Only a started round can be cancelled: validating never waits.
        round: context.round,
        lastHandoff: context.handoff,
      }),
    ),
  },
  delays: {
    cancelDeadline: ({ context }) => context.call.terminationGraceMs + KILL_MARGIN_MS,
    // A guard rail that is off still needs a finite delay (setTimeout turns larger ones into ~1 ms); its guard
    // keeps that timer from ever taking a transition.
    roundTimeout: ({ context }) => context.call.guardRails.roundTimeoutMs ?? MAX_DURATION_MS,
    // A run taken up again elsewhere (a fleet's takeover) has spent part of its budget already.
    wallClock: ({ context }) => {
      const { maxWallTimeMs, spentWallTimeMs } = context.call.guardRails;
      return maxWallTimeMs === null ? MAX_DURATION_MS : Math.max(0, maxWallTimeMs - (spentWallTimeMs ?? 0));
    },
    limitWait: ({ context }) => context.limitWaitMs ?? MAX_DURATION_MS,
  },
}).createMachine({
  id: 'ralph',
  description:
    'One immutable objective handed to a fresh child agent per round, until a round reports it complete or blocked, the round cap is reached, the run fails or it is cancelled.',
  context: ({ input }) => ({
    runId: input.runId,
    call: {
      objectiveInput: objectiveOf(input.args),
      requestedMaxRounds: requestedMaxRoundsOf(input.args),
      agent: input.agent,
      provider: input.provider,
      deploymentMaxRounds: input.maxRounds,
      maxHandoffChars: input.maxHandoffChars,
      terminationGraceMs: input.terminationGraceMs,
      maxTotalAgents: input.maxTotalAgents,
      resumeFrom: input.resume ?? null,
      guardRails: input.guardRails ?? NO_GUARD_RAILS,
    },
    objective: '',
    maxRounds: 0,
    round: 0,
    agentsStarted: 0,
    childId: null,
    handoff: null,
    review: null,
    outcome: null,
    outOfTime: false,
    stopReason: null,
    fingerprint: null,
    idleRounds: 0,
    roundUsage: null,
    usage: null,
    limitWaits: 0,
    limitWaitMs: null,
  }),
  initial: 'validating',
  output: ({ context }) => context.outcome as RalphOutput,
  // The wall clock runs from the start of the run to its end, whatever state it is in: a round running when it
  // runs out is stopped (by `round` and `awaitingReport`, which watch outOfTime), and no round starts after it.
  after: {
    wallClock: {
      guard: 'wallClockIsRunning',
      actions: ['markOutOfTime', 'announceTimeLimit'],
    },
  },
  states: {
    validating: {
      description: 'Checks the call before anything starts; the first failing check gives the refusal.',
      always: [
        {
          guard: 'objectiveIsEmpty',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: OBJECTIVE_EMPTY } },
        },
        {
          guard: 'maxRoundsIsInvalid',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: MAX_ROUNDS_INVALID } },
        },
        {
          guard: 'maxRoundsExceedsDeploymentCeiling',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({
              message: maxRoundsExceedsCeiling(
                resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds),
                context.call.deploymentMaxRounds,
              ),
            }),
          },
        },
        {
          guard: 'maxRoundsExceedsEngineCeiling',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({
              message: maxRoundsExceedsCeiling(
                resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds),
                context.call.maxTotalAgents,
              ),
            }),
          },
        },
        {
          guard: 'callingAgentIsMissing',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: CALLING_AGENT_MISSING } },
        },
        {
          guard: 'providerIsNotRegistered',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerNotRegistered(context.call.provider.name) }),
          },
        },
        {
          guard: 'providerLacksStructuredOutput',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerLacksStructuredOutput(context.call.provider.name) }),
          },
        },
        {
          guard: 'providerInheritsParentContext',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerInheritsParentContext(context.call.provider.name) }),
          },
        },
        {
          guard: 'costBudgetLacksCostReports',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({
              message: costBudgetNeedsCostReports(
                context.call.provider.name,
                costBudgetOf(context) as number,
              ),
            }),
          },
        },
        {
          guard: 'resumePointIsInvalid',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: resumeRefused(resumePointProblem(context) as string) }),
          },
        },
        { guard: 'isResuming', target: 'round', actions: ['acceptCall', 'restoreProgress'] },
        { guard: 'idleWatchIsOn', target: 'fingerprinting', actions: 'acceptCall' },
        { target: 'round', actions: 'acceptCall' },
      ],
    },
    round: {
      description:
        'Starts exactly one fresh child for this round; a provider that cannot start it fails the workflow.',
      tags: ['childRunning'],
      entry: ['beginRound', 'announceRound'],
      invoke: {
        id: 'startChild',
        src: 'startChild',
        input: ({ context }) => ({
          runId: context.runId,
          round: context.round,
          maxRounds: context.maxRounds,
          objective: context.objective,
          handoff: context.handoff,
          prompt: renderRoundPrompt({
            objective: context.objective,
            round: context.round,
            maxRounds: context.maxRounds,
            handoff: context.handoff,
          }),
          outputSchema: reportJsonSchemaCopy(),
          cwd: (context.call.agent as AgentRef).cwd,
          parent: context.call.agent as AgentRef,
          maxHandoffChars: context.call.maxHandoffChars,
        }),
        onDone: {
          target: 'awaitingReport',
          actions: [
            { type: 'recordChildStarted', params: ({ event }) => ({ childId: event.output.childId }) },
            { type: 'announceChild', params: ({ event }) => ({ childId: event.output.childId }) },
          ],
        },
        onError: {
          target: 'failed',
          actions: { type: 'failProviderStart', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { CANCEL: 'cancelling' },
      after: {
        roundTimeout: {
          guard: 'roundTimeoutIsSet',
          target: 'stoppingRound',
          actions: [{ type: 'stopRound', params: { reason: 'round-timeout' } }, 'announceRoundTimedOut'],
        },
      },
      always: {
        guard: 'timeBudgetIsSpent',
        target: 'stoppingRound',
        actions: { type: 'stopRound', params: { reason: 'time-limit' } },
      },
    },
    awaitingReport: {
      description:
        "Waits for the child's structured report and reviews it, once, on the way to the decision.",
      tags: ['childRunning'],
      invoke: {
        id: 'awaitReport',
        src: 'awaitReport',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: [
          {
            guard: { type: 'roundHitLimitAndWaits', params: ({ event }) => ({ limit: event.output.limit }) },
            target: 'waitingForLimit',
            actions: [
              { type: 'recordUsage', params: ({ event }) => ({ usage: event.output.usage }) },
              {
                type: 'recordLimitWait',
                params: ({ event }) => ({ limit: event.output.limit as RoundLimit }),
              },
              {
                type: 'announceLimitWait',
                params: ({ event }) => ({ limit: event.output.limit as RoundLimit }),
              },
            ],
          },
          {
            guard: { type: 'roundHitLimit', params: ({ event }) => ({ limit: event.output.limit }) },
            target: 'failed',
            actions: [
              { type: 'recordUsage', params: ({ event }) => ({ usage: event.output.usage }) },
              {
                type: 'failUsageLimit',
                params: ({ event }) => ({ limit: event.output.limit as RoundLimit }),
              },
            ],
          },
          {
            target: 'reviewingReport',
            actions: [
              { type: 'recordUsage', params: ({ event }) => ({ usage: event.output.usage }) },
              { type: 'reviewReport', params: ({ event }) => ({ output: event.output.output }) },
            ],
          },
        ],
        // What the failed round's agent said it spent counts though no report came (it travels on the error).
        onError: {
          target: 'failed',
          actions: [
            { type: 'recordUsage', params: ({ event }) => ({ usage: usageOfFailure(event.error) }) },
            { type: 'failChild', params: ({ event }) => ({ error: event.error }) },
          ],
        },
      },
      on: { CANCEL: 'cancelling' },
      after: {
        roundTimeout: {
          guard: 'roundTimeoutIsSet',
          target: 'stoppingRound',
          actions: [{ type: 'stopRound', params: { reason: 'round-timeout' } }, 'announceRoundTimedOut'],
        },
      },
      always: {
        guard: 'timeBudgetIsSpent',
        target: 'stoppingRound',
        actions: { type: 'stopRound', params: { reason: 'time-limit' } },
      },
    },
    reviewingReport: {
      description:
        'Where the review and the round cap decide what follows, so that the decision is a state a diagram shows and the report is checked once. Its transitions are eventless: a run never rests here, and nothing (CANCEL included) can arrive while it is here.',
      always: [
        {
          guard: { type: 'reportIsMissing', params: ({ context }) => ({ review: context.review }) },
          target: 'failed',
          actions: {
            type: 'failMissingReport',
            params: ({ context }) => ({ problem: reviewAs(context.review, 'missing').problem }),
          },
        },
        {
          guard: { type: 'reportIsMalformed', params: ({ context }) => ({ review: context.review }) },
          target: 'failed',
          actions: {
            type: 'failMalformedReport',
            params: ({ context }) => ({ problem: reviewAs(context.review, 'malformed').problem }),
          },
        },
        {
          guard: { type: 'reportExceedsHandoffCap', params: ({ context }) => ({ review: context.review }) },
          target: 'failed',
          actions: {
            type: 'failOversizedReport',
            params: ({ context }) => ({ size: reviewAs(context.review, 'oversized').size }),
          },
        },
        {
          guard: { type: 'completionNeedsVerifying', params: ({ context }) => ({ review: context.review }) },
          target: 'verifying',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
          ],
        },
        {
          guard: { type: 'reportIsComplete', params: ({ context }) => ({ review: context.review }) },
          target: 'complete',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
            { type: 'settle', params: { status: 'complete' } },
          ],
        },
        {
          guard: { type: 'reportIsBlocked', params: ({ context }) => ({ review: context.review }) },
          target: 'blocked',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
            { type: 'settle', params: { status: 'blocked' } },
          ],
        },
        {
          guard: {
            type: 'roundCapReached',
            params: ({ context }) => ({ round: context.round, maxRounds: context.maxRounds }),
          },
          target: 'budgetLimited',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
            { type: 'settle', params: { status: 'budget-limited' } },
          ],
        },
        {
          guard: 'costBudgetIsSpent',
          target: 'budgetLimited',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
            'settleCostLimited',
          ],
        },
        {
          guard: 'idleWatchIsOn',
          target: 'fingerprinting',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
          ],
        },
        {
          target: 'round',
          actions: [
            { type: 'acceptReport', params: ({ context }) => reviewAs(context.review, 'accepted') },
            'announceReport',
          ],
        },
      ],
    },
    verifying: {
      description:
        'A round reported complete and a verify command is configured: the completion is accepted only if the command exits 0 in the workspace; otherwise the next round gets the report and the failure as its handoff, within the round cap.',
      entry: 'announceVerifyStarted',
      invoke: {
        id: 'runVerify',
        src: 'runVerify',
        input: ({ context }) => ({
          runId: context.runId,
          round: context.round,
          cwd: (context.call.agent as AgentRef).cwd,
          verify: context.call.guardRails.verify as VerifySpec,
          terminationGraceMs: context.call.terminationGraceMs,
        }),
        onDone: [
          {
            guard: { type: 'verifyPassed', params: ({ event }) => ({ outcome: event.output }) },
            target: 'complete',
            actions: [
              {
                type: 'announceVerifyFinished',
                params: ({ event }) => ({ outcome: event.output, passed: true }),
              },
              'settleVerified',
            ],
          },
          {
            guard: {
              type: 'roundCapReached',
              params: ({ context }) => ({ round: context.round, maxRounds: context.maxRounds }),
            },
            target: 'budgetLimited',
            actions: [
              {
                type: 'announceVerifyFinished',
                params: ({ event }) => ({ outcome: event.output, passed: false }),
              },
              { type: 'handOffVerifyFailure', params: ({ event }) => ({ outcome: event.output }) },
              { type: 'settle', params: { status: 'budget-limited' } },
            ],
          },
          {
            guard: 'idleWatchIsOn',
            target: 'fingerprinting',
            actions: [
              {
                type: 'announceVerifyFinished',
                params: ({ event }) => ({ outcome: event.output, passed: false }),
              },
              { type: 'handOffVerifyFailure', params: ({ event }) => ({ outcome: event.output }) },
            ],
          },
          {
            target: 'nextRound',
            actions: [
              {
                type: 'announceVerifyFinished',
                params: ({ event }) => ({ outcome: event.output, passed: false }),
              },
              { type: 'handOffVerifyFailure', params: ({ event }) => ({ outcome: event.output }) },
            ],
          },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'failVerifyStart', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { CANCEL: 'cancellingVerify' },
    },
    fingerprinting: {
      description:
        'The idle watch: takes a content fingerprint of the workspace before round 1 and after each round that leaves work remaining; that many unchanged rounds in a row end the run budget-limited.',
      invoke: {
        id: 'fingerprintWorkspace',
        src: 'fingerprintWorkspace',
        input: ({ context }) => ({
          runId: context.runId,
          round: context.round,
          cwd: (context.call.agent as AgentRef).cwd,
        }),
        onDone: [
          {
            guard: { type: 'idleLimitReached', params: ({ event }) => ({ fingerprint: event.output }) },
            target: 'budgetLimited',
            actions: [
              { type: 'recordFingerprint', params: ({ event }) => ({ fingerprint: event.output }) },
              'announceIdleRound',
              'settleIdleLimited',
            ],
          },
          {
            guard: { type: 'workspaceUnchanged', params: ({ event }) => ({ fingerprint: event.output }) },
            target: 'nextRound',
            actions: [
              { type: 'recordFingerprint', params: ({ event }) => ({ fingerprint: event.output }) },
              'announceIdleRound',
            ],
          },
          {
            target: 'nextRound',
            actions: { type: 'recordFingerprint', params: ({ event }) => ({ fingerprint: event.output }) },
          },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'failFingerprint', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'settleCancelled' } },
    },
    nextRound: {
      description:
        'The gate a round passes after a guard rail ran between rounds (the verify command, the fingerprint): once the wall-clock budget or the cost budget is spent no round starts. Eventless: a run never rests here.',
      always: [
        { guard: 'timeRanOutBeforeAnyReport', target: 'failed', actions: 'failTimeRanOutBeforeRounds' },
        { guard: 'timeBudgetIsSpent', target: 'budgetLimited', actions: 'settleTimeLimited' },
        { guard: 'costBudgetIsSpent', target: 'budgetLimited', actions: 'settleCostLimited' },
        { target: 'round' },
      ],
    },
    waitingForLimit: {
      description:
        "The round's agent hit a usage or rate limit and --wait-on-limits is on: waits until the limit resets (plus a margin; with no reset time, a backoff that doubles up to 30 minutes), then runs the round again with a fresh child, costing no round of the cap. No child runs here, so CANCEL ends the run at once; once the time limit is spent the run ends budget-limited with the last good report, or failed when none came yet.",
      on: { CANCEL: { target: 'cancelled', actions: 'settleCancelled' } },
      after: { limitWait: { target: 'round', actions: 'repeatRound' } },
      always: [
        { guard: 'timeRanOutBeforeAnyReport', target: 'failed', actions: 'failTimeRanOutWaiting' },
        { guard: 'timeBudgetIsSpent', target: 'budgetLimited', actions: 'settleTimeLimited' },
      ],
    },
    stoppingRound: {
      description:
        "A guard rail stopped the round (its timeout, or the run's time limit): holds the run open until the child has stopped, bounded like a cancellation, so that no child outlives the run.",
      tags: ['childRunning'],
      invoke: {
        id: 'awaitChildStopped',
        src: 'awaitChildStopped',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: 'roundStopped',
        onError: 'roundStopped',
      },
      after: {
        cancelDeadline: 'roundStopped',
      },
    },
    roundStopped: {
      description:
        "Where a stopped round's ending is decided: a timed-out round fails the run as that round's child failure; a round stopped by the time limit ends it budget-limited with the last good report, or failed when no round had reported yet. Eventless.",
      always: [
        { guard: 'stoppedForRoundTimeout', target: 'failed', actions: 'failRoundTimedOut' },
        { guard: 'timeRanOutBeforeAnyReport', target: 'failed', actions: 'failTimeRanOutInRound' },
        { target: 'budgetLimited', actions: 'settleTimeLimited' },
      ],
    },
    cancellingVerify: {
      description:
        'The run was cancelled while its verify command ran: holds it open until the command has stopped, bounded like a cancelled child.',
      invoke: {
        id: 'awaitVerifyStopped',
        src: 'awaitVerifyStopped',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: { target: 'cancelled', actions: 'settleCancelled' },
        onError: { target: 'cancelled', actions: 'settleCancelled' },
      },
      after: {
        cancelDeadline: { target: 'cancelled', actions: 'settleCancelled' },
      },
    },
    cancelling: {
      description:
        'Holds the run open until the aborted child has stopped, so that no child outlives a cancelled run.',
      tags: ['childRunning'],
      invoke: {
        id: 'awaitChildStopped',
        src: 'awaitChildStopped',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: { target: 'cancelled', actions: 'settleCancelled' },
        onError: { target: 'cancelled', actions: 'settleCancelled' },
      },
      after: {
        cancelDeadline: { target: 'cancelled', actions: 'settleCancelled' },
      },
    },
    complete: {
      type: 'final',
      description:
        "A round reported the objective complete: the worker's word, not an independent check, unless a verify command is configured and exited 0.",
      tags: ['settled', 'succeeded'],
    },
    blocked: {
      type: 'final',
      description: 'A round reported a concrete blocker.',
      tags: ['settled', 'succeeded'],
    },
    budgetLimited: {
      type: 'final',
      description:
        'A limit was reached while the last report still had work remaining: the round cap, or a guard rail (the time limit, the idle limit, the cost limit).',
      tags: ['settled', 'succeeded'],
    },
    failed: {
      type: 'final',
      description:
        'The workflow or a child failed; the outcome names the round and keeps the last good handoff.',
      tags: ['settled', 'failure'],
    },
    rejected: {
      type: 'final',
      description:
        'The call was refused by validation and no child was started: an ending of its own, so that a refusal is never mistaken for a failed run.',
      tags: ['settled', 'failure'],
    },
    cancelled: {
      type: 'final',
      description: 'The run was cancelled and its child has stopped (or was abandoned after the deadline).',
      tags: ['settled', 'failure'],
    },
  },
});

/** The run machine's type, for hosts that interpret it directly. */
export type RalphMachine = typeof ralphMachine;
