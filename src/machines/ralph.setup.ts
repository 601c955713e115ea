import { enqueueActions, fromPromise, setup } from 'xstate';
import {
  type AnswerOutcome,
  answeredHandoff,
  type RalphQuestion,
  type UnansweredReason,
} from '../contract/answers.js';
import { isNonEmptyObjective, isValidMaxRounds } from '../contract/call.js';
import { formatDuration, MAX_DURATION_MS } from '../contract/duration.js';
import { errorText } from '../contract/error-text.js';
import { evaluatorRejectionHandoff } from '../contract/evaluator-handoff.js';
import {
  evaluatorChangedWorkspace,
  evaluatorCouldNotStart,
  evaluatorFailed,
  evaluatorTimedOut,
  verdictMalformed,
  verdictMissing,
  verdictOversized,
} from '../contract/evaluator-messages.js';
import type { EvaluatorVerdict, VerdictReview } from '../contract/evaluator-verdict.js';
import { reviewVerdict } from '../contract/evaluator-verdict.js';
import {
  fingerprintFailed,
  roundTimedOut,
  timeRanOutBeforeRounds,
  timeRanOutInRound,
  timeRanOutWaitingForLimit,
  verifyCouldNotStart,
} from '../contract/guard-rail-messages.js';
import { childFailureMessage, WORKFLOW_CANCELLED, workflowFailed } from '../contract/messages.js';
import { reviewReport } from '../contract/round-report-review.js';
import type {
  ChildRequest,
  RalphProgressEvent,
  RalphResultStatus,
  VerifyOutcome,
} from '../contract/types.js';
import { addUsage, type RalphUsage, usageOf } from '../contract/usage.js';
import { verifyFailureHandoff } from '../contract/verify-handoff.js';
import { contextAssign } from './context-assign.js';
import { limitWaitMs } from './limit-wait.js';
import { emitProgress } from './progress-emit.js';
import {
  answerWaitOf,
  contextWith,
  costBudgetOf,
  evaluationOf,
  evaluatorOf,
  fail,
  failed,
  handoffOf,
  limitOf,
  progressOf,
  railOf,
  reviewAs,
  settled,
  spentUsdOf,
  uncountedRoundsOf,
  verifyOf,
} from './ralph.context.js';
import {
  type ChildStarted,
  type EvaluationOutcome,
  type FingerprintRequest,
  KILL_MARGIN_MS,
  type RalphContext,
  type RalphMachineEvent,
  type RalphMachineInput,
  type RalphOutput,
  type RalphTag,
  type RoundOutcome,
  type RoundRef,
  type VerifyRequest,
} from './ralph.types.js';
import { type CallCheck, REFUSALS, requestedCapOf } from './refusals.js';
import { resumePointProblem } from './resume-point-problem.js';

/** XState's `assign`, copying the run's context as a literal of its keys (context-assign.ts, `contextWith`). */
const assignContext = contextAssign(contextWith);

const notProvided = (name: string) => () => {
  throw new Error(`ralphMachine actor "${name}" was not provided; run the machine through createRalphEngine`);
};

/** The accepted report's status (read only in `reviewingReport.accepted`, where the review accepted it). */
const acceptedStatusOf = (context: RalphContext) => reviewAs(context.review, 'accepted').report.status;

/** A round's child failed (its error, its limit, its timeout): the reference's child-failure message. */
const childFailed = (context: RalphContext, detail: string) =>
  failed(context, {
    code: 'child-failed',
    message: childFailureMessage(context.round, context.handoff),
    detail,
  });

/** The workflow failed in the current round; the detail, when given, says why. */
const workflowFailedIn = (context: RalphContext, message: string, detail?: string) =>
  failed(context, {
    code: 'workflow-failed',
    message: workflowFailed(message),
    ...(detail === undefined ? {} : { detail }),
  });

/** The review of the running evaluation's verdict, as the guard of the branch being taken has just read it. */
function verdictReviewAs<S extends VerdictReview['state']>(
  context: RalphContext,
  state: S,
): Extract<VerdictReview, { state: S }> {
  const review = evaluationOf(context).review;
  if (review?.state !== state)
    throw new Error(`ralphMachine: expected a ${state} verdict review, found ${review?.state ?? 'none'}`);
  return review as Extract<VerdictReview, { state: S }>;
}

/** The verdict the running evaluation gave (read only where the review found one). */
const givenVerdictOf = (context: RalphContext): EvaluatorVerdict => verdictReviewAs(context, 'given').verdict;

/** The evaluations with `update` applied: the one context key of a run with an evaluator. */
const withEvaluation = (context: RalphContext, update: Partial<RalphContext['evaluation'] & object>) => ({
  evaluation: { ...evaluationOf(context), ...update },
});

/** The run machine's implementations: its actors (provided by the engine), named guards, actions and delays. */
export const ralphSetup = setup({
  types: {
    context: {} as RalphContext,
    input: {} as RalphMachineInput,
    events: {} as RalphMachineEvent,
    output: {} as RalphOutput,
    emitted: {} as RalphProgressEvent,
    tags: {} as RalphTag,
  },
  actors: {
    /**
     * The round's one actor: starts one fresh child through the provider, tells the run `CHILD_STARTED` once it has,
     * then resolves with the child's raw structured output and its usage. Rejects on a provider-start failure (before
     * `CHILD_STARTED`) or an ordinary child failure (after it).
     */
    runRound: fromPromise<RoundOutcome, ChildRequest>(notProvided('runRound')),
    /** Settles once a cancelled round's child has stopped. */
    awaitChildStopped: fromPromise<void, RoundRef>(notProvided('awaitChildStopped')),
    /** Runs the verify command; resolves with how it ended, rejects when it cannot start; stops it on abort. */
    runVerify: fromPromise<VerifyOutcome, VerifyRequest>(notProvided('runVerify')),
    /** Settles once an aborted verify command's process group is gone. */
    awaitVerifyStopped: fromPromise<void, RoundRef>(notProvided('awaitVerifyStopped')),
    /** Resolves with a content fingerprint of the workspace. */
    fingerprintWorkspace: fromPromise<string, FingerprintRequest>(notProvided('fingerprintWorkspace')),
    /** Takes the workspace's snapshot, then starts one fresh evaluator through the evaluator provider. */
    startEvaluator: fromPromise<ChildStarted, ChildRequest>(notProvided('startEvaluator')),
    /** Resolves with the evaluator's raw verdict, its usage and what it changed; rejects when it failed. */
    awaitVerdict: fromPromise<EvaluationOutcome, RoundRef>(notProvided('awaitVerdict')),
    /** Settles once a stopped evaluator has stopped. */
    awaitEvaluatorStopped: fromPromise<void, RoundRef>(notProvided('awaitEvaluatorStopped')),
    /** Resolves with a person's answer to a blocked round's question (or that the source's own wait ran out). */
    awaitAnswer: fromPromise<AnswerOutcome, RalphQuestion>(notProvided('awaitAnswer')),
  },
  guards: {
    objectiveIsEmpty: ({ context }) => !isNonEmptyObjective(context.call.objectiveInput),
    maxRoundsIsInvalid: ({ context }) => !isValidMaxRounds(context.call.requestedMaxRounds),
    maxRoundsExceedsDeploymentCeiling: ({ context }) =>
      requestedCapOf(context) > context.call.deploymentMaxRounds,
    maxRoundsExceedsEngineCeiling: ({ context }) => requestedCapOf(context) > context.call.maxTotalAgents,
    callingAgentIsMissing: ({ context }) => context.call.agent === null,
    providerIsNotRegistered: ({ context }) => !context.call.provider.registered,
    providerLacksStructuredOutput: ({ context }) => !context.call.provider.structuredOutput,
    providerInheritsParentContext: ({ context }) => context.call.provider.inheritsParentContext,
    evaluatorIsNotRegistered: ({ context }) => context.call.evaluator?.registered === false,
    evaluatorLacksStructuredOutput: ({ context }) => context.call.evaluator?.structuredOutput === false,
    evaluatorInheritsParentContext: ({ context }) => context.call.evaluator?.inheritsParentContext === true,
    evaluatorLacksCostReports: ({ context }) =>
      costBudgetOf(context) !== null &&
      context.call.evaluator !== undefined &&
      context.call.evaluator.reportsCost !== true,
    providerCannotSandbox: ({ context }) =>
      context.call.sandbox !== undefined && context.call.provider.sandbox !== true,
    evaluatorCannotSandbox: ({ context }) =>
      context.call.sandbox !== undefined &&
      context.call.evaluator !== undefined &&
      context.call.evaluator.sandbox !== true,
    resumePointIsInvalid: ({ context }) => resumePointProblem(context) !== undefined,
    isResumingEvaluation: ({ context }) => context.call.resumeFrom?.evaluating === true,
    isResumingQuestion: ({ context }) => context.call.resumeFrom?.awaitingAnswer === true,
    isResuming: ({ context }) => context.call.resumeFrom !== null,
    reportIsMissing: ({ context }) => context.review?.verdict === 'missing',
    reportIsMalformed: ({ context }) => context.review?.verdict === 'malformed',
    reportExceedsHandoffCap: ({ context }) => context.review?.verdict === 'oversized',
    reportIsComplete: ({ context }) => acceptedStatusOf(context) === 'complete',
    reportIsBlocked: ({ context }) => acceptedStatusOf(context) === 'blocked',
    // Only where an answer could start a round: at the round cap, or once a budget is spent, blocked ends the run.
    blockedWaitsForAnswer: ({ context }) => {
      if (context.call.guardRails.waitForAnswersMs === undefined || acceptedStatusOf(context) !== 'blocked')
        return false;
      const budget = costBudgetOf(context);
      return (
        context.round < context.maxRounds &&
        !context.outOfTime &&
        (budget === null || spentUsdOf(context) < budget)
      );
    },
    personAnswered: (_, outcome: AnswerOutcome) => outcome.kind === 'answer',
    roundCapReached: ({ context }) => context.round >= context.maxRounds,
    // The round's child has not told its start yet (`beginRound` clears childId): a failure now is the provider's.
    childIsStarting: ({ context }) => context.childId === null,
    roundTimeoutIsSet: ({ context }) => context.call.guardRails.roundTimeoutMs !== null,
    wallClockIsRunning: ({ context }) => context.call.guardRails.maxWallTimeMs !== null && !context.outOfTime,
    timeBudgetIsSpent: ({ context }) => context.outOfTime,
    timeRanOutBeforeAnyReport: ({ context }) => context.outOfTime && context.handoff === null,
    completionNeedsVerifying: ({ context }) =>
      context.call.guardRails.verify !== null && acceptedStatusOf(context) === 'complete',
    verifyPassed: (_, outcome: VerifyOutcome) => outcome.exitCode === 0 && !outcome.timedOut,
    verifyPassedAndNeedsEvaluating: ({ context }, outcome: VerifyOutcome) =>
      outcome.exitCode === 0 && !outcome.timedOut && context.call.evaluator !== undefined,
    completionNeedsEvaluating: ({ context }) =>
      context.call.evaluator !== undefined && acceptedStatusOf(context) === 'complete',
    evaluatorChangedWorkspace: ({ context }) => evaluationOf(context).changedFiles.length > 0,
    verdictIsMissing: ({ context }) => evaluationOf(context).review?.state === 'missing',
    verdictIsMalformed: ({ context }) => evaluationOf(context).review?.state === 'malformed',
    verdictExceedsHandoffCap: ({ context }) => evaluationOf(context).review?.state === 'oversized',
    verdictIsAccept: ({ context }) => givenVerdictOf(context).verdict === 'accept',
    idleWatchIsOn: ({ context }) => context.call.guardRails.maxIdleRounds !== null,
    // The fingerprint before round 1 has none to equal: the context holds none (null) until it is taken.
    idleLimitReached: ({ context }, params: { fingerprint: string }) =>
      params.fingerprint === context.fingerprint &&
      context.idleRounds + 1 >= (context.call.guardRails.maxIdleRounds ?? Number.POSITIVE_INFINITY),
    workspaceUnchanged: ({ context }, params: { fingerprint: string }) =>
      params.fingerprint === context.fingerprint,
    stoppedForRoundTimeout: ({ context }) => context.stopReason === 'round-timeout',
    roundHitLimitAndWaits: ({ context }, outcome: RoundOutcome) =>
      outcome.limit !== undefined && context.call.guardRails.waitOnLimits === true,
    roundHitLimit: (_, outcome: RoundOutcome) => outcome.limit !== undefined,
    costBudgetLacksCostReports: ({ context }) =>
      costBudgetOf(context) !== null && context.call.provider.reportsCost !== true,
    costBudgetIsSpent: ({ context }) => {
      const budget = costBudgetOf(context);
      return budget !== null && spentUsdOf(context) >= budget;
    },
  },
  actions: {
    refuse: assignContext(({ context }, params: { check: CallCheck }) =>
      fail({ code: 'refused', message: REFUSALS[params.check](context) }),
    ),
    acceptCall: assignContext(({ context }) => ({
      objective: context.call.objectiveInput as string,
      maxRounds: requestedCapOf(context),
    })),
    restoreProgress: assignContext(({ context }) => {
      const from = context.call.resumeFrom;
      if (from === null) return {};
      // What the rounds before said they used goes on being counted (read, not trusted: a recording is a file).
      return {
        round: from.round,
        handoff: from.handoff,
        agentsStarted: from.agentsStarted,
        usage: usageOf(from.usage),
      };
    }),
    beginRound: assignContext(({ context }) => ({
      round: context.round + 1,
      childId: null,
      review: null,
      roundUsage: null,
    })),
    // The round's own events are written out field by field, in progressOf's order: a spread a round each is garbage.
    announceRound: emitProgress(({ context }) => ({
      type: 'round-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
    })),
    recordChildStarted: assignContext(({ context }, params: ChildStarted) => ({
      agentsStarted: context.agentsStarted + 1,
      childId: params.childId,
    })),
    announceChild: emitProgress(({ context }, params: ChildStarted) => ({
      type: 'child-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      childId: params.childId,
    })),
    failProviderStart: assignContext(({ context }, params: { error: unknown }) =>
      workflowFailedIn(
        context,
        `subagent provider "${context.call.provider.name}" failed to start round ${context.round}: ${errorText(params.error)}`,
        errorText(params.error),
      ),
    ),
    failChild: assignContext(({ context }, params: { error: unknown }) =>
      childFailed(context, errorText(params.error)),
    ),
    reviewReport: assignContext(({ context }, outcome: RoundOutcome) => ({
      review: reviewReport(outcome.output, context.call.maxHandoffChars),
    })),
    recordUsage: assignContext(({ context }, params: { usage: RalphUsage | null }) => ({
      roundUsage: params.usage,
      usage: addUsage(context.usage, params.usage),
    })),
    failMissingReport: assignContext(({ context }) =>
      workflowFailedIn(
        context,
        `round ${context.round} child finished without a structured report`,
        reviewAs(context.review, 'missing').problem,
      ),
    ),
    failMalformedReport: assignContext(({ context }) => {
      const { problem } = reviewAs(context.review, 'malformed');
      return workflowFailedIn(context, `round ${context.round} report is malformed: ${problem}`, problem);
    }),
    failOversizedReport: assignContext(({ context }) =>
      workflowFailedIn(
        context,
        `round ${context.round} report is ${reviewAs(context.review, 'oversized').size} characters, over the handoff cap of ${context.call.maxHandoffChars}`,
      ),
    ),
    acceptReport: assignContext(({ context }) => ({
      handoff: reviewAs(context.review, 'accepted').report,
      limitWaits: 0,
    })),
    // Every accepted report is announced just after it is accepted (two actions, not one `enqueueActions`: that
    // costs ≈ 10 µs a round, measured side by side). Usage is added only when an agent said it, so a run whose
    // agents say nothing emits the reference's event.
    announceReport: emitProgress(({ context }) => {
      const event: RalphProgressEvent = {
        type: 'report-accepted',
        runId: context.runId,
        round: context.round,
        maxRounds: context.maxRounds,
        report: handoffOf(context),
      };
      if (context.roundUsage !== null) event.usage = context.roundUsage;
      if (context.usage !== null) event.totalUsage = context.usage;
      return event;
    }),
    failUsageLimit: assignContext(({ context }, outcome: RoundOutcome) =>
      childFailed(context, limitOf(outcome).detail),
    ),
    recordLimitWait: assignContext(({ context }, outcome: RoundOutcome) => ({
      limitWaits: context.limitWaits + 1,
      limitWaitMs: limitWaitMs(limitOf(outcome), context.limitWaits + 1),
    })),
    announceLimitWait: emitProgress(({ context }, outcome: RoundOutcome) => ({
      type: 'limit-wait-started' as const,
      ...progressOf(context),
      waitMs: context.limitWaitMs as number,
      detail: limitOf(outcome).detail,
    })),
    // The round is run again: it is started once more under its own number, so the wait costs no round of the cap.
    repeatRound: assignContext(({ context }) => ({ round: context.round - 1, limitWaitMs: null })),
    settle: assignContext(({ context }, params: { status: RalphResultStatus }) =>
      settled(context, params.status),
    ),
    // The guard rails' envelopes add one field after the reference's, so a reference run's envelope is unchanged.
    // A round stopped by the time limit, or waiting out a usage limit, is counted in `rounds` but never reported:
    // the limit names it, so that no host mistakes the last report for that round's.
    settleTimeLimited: assignContext(({ context }) =>
      settled(context, 'budget-limited', {
        limit: {
          kind: 'time',
          maxWallTimeMs: railOf(context, 'maxWallTimeMs'),
          ...(context.stopReason === 'time-limit' || context.limitWaitMs !== null
            ? { unfinishedRound: context.round }
            : {}),
        },
      }),
    ),
    settleIdleLimited: assignContext(({ context }) =>
      settled(context, 'budget-limited', {
        limit: { kind: 'idle', maxIdleRounds: railOf(context, 'maxIdleRounds') },
      }),
    ),
    settleCostLimited: assignContext(({ context }) =>
      settled(context, 'budget-limited', {
        limit: {
          kind: 'cost',
          maxCostUsd: railOf(context, 'maxCostUsd'),
          spentUsd: spentUsdOf(context),
          ...(uncountedRoundsOf(context).length === 0
            ? {}
            : { uncountedRounds: [...uncountedRoundsOf(context)] }),
        },
      }),
    ),
    settleVerified: assignContext(({ context }) =>
      settled(context, 'complete', { verifiedBy: [...verifyOf(context).argv] }),
    ),
    markOutOfTime: assignContext({ outOfTime: true }),
    announceTimeLimit: emitProgress(({ context }) => ({
      type: 'time-limit-reached' as const,
      ...progressOf(context),
      maxWallTimeMs: railOf(context, 'maxWallTimeMs'),
    })),
    stopRoundForTimeout: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ stopReason: 'round-timeout' });
      enqueue.emit({
        type: 'round-timed-out' as const,
        ...progressOf(context),
        roundTimeoutMs: railOf(context, 'roundTimeoutMs'),
      });
    }),
    stopRoundForTimeLimit: assignContext({ stopReason: 'time-limit' }),
    failRoundTimedOut: assignContext(({ context }) =>
      childFailed(context, roundTimedOut(context.round, railOf(context, 'roundTimeoutMs'))),
    ),
    failTimeRanOutInRound: assignContext(({ context }) =>
      childFailed(context, timeRanOutInRound(context.round, railOf(context, 'maxWallTimeMs'))),
    ),
    failTimeRanOutBeforeRounds: assignContext(({ context }) => {
      const detail = timeRanOutBeforeRounds(railOf(context, 'maxWallTimeMs'));
      return workflowFailedIn(context, detail, detail);
    }),
    failTimeRanOutWaiting: assignContext(({ context }) => {
      const detail = timeRanOutWaitingForLimit(context.round, railOf(context, 'maxWallTimeMs'));
      return workflowFailedIn(context, detail, detail);
    }),
    announceVerifyStarted: emitProgress(({ context }) => ({
      type: 'verify-started' as const,
      ...progressOf(context),
      command: [...verifyOf(context).argv],
    })),
    announceVerifyPassed: emitProgress(({ context }, outcome: VerifyOutcome) =>
      verifyFinished(context, outcome, true),
    ),
    // A completion the command did not confirm: announced, then handed to the next round with the failure.
    rejectCompletion: enqueueActions(({ context, enqueue }, outcome: VerifyOutcome) => {
      enqueue.emit(verifyFinished(context, outcome, false));
      enqueue.assign({
        handoff: verifyFailureHandoff(
          handoffOf(context),
          verifyOf(context),
          outcome,
          context.call.maxHandoffChars,
        ),
      });
    }),
    failVerifyStart: assignContext(({ context }, params: { error: unknown }) =>
      workflowFailedIn(
        context,
        verifyCouldNotStart(context.round, verifyOf(context).argv, errorText(params.error)),
        errorText(params.error),
      ),
    ),
    recordFingerprint: assignContext(({ context }, params: { fingerprint: string }) => ({
      fingerprint: params.fingerprint,
      idleRounds: params.fingerprint === context.fingerprint ? context.idleRounds + 1 : 0,
    })),
    announceIdleRound: emitProgress(({ context }) => ({
      type: 'workspace-unchanged' as const,
      ...progressOf(context),
      idleRounds: context.idleRounds,
      maxIdleRounds: railOf(context, 'maxIdleRounds'),
    })),
    failFingerprint: assignContext(({ context }, params: { error: unknown }) =>
      workflowFailedIn(
        context,
        fingerprintFailed(context.round, errorText(params.error)),
        errorText(params.error),
      ),
    ),
    beginEvaluation: assignContext(({ context }) =>
      withEvaluation(context, { review: null, changedFiles: [] }),
    ),
    announceEvaluatorStarted: emitProgress(({ context }) => ({
      type: 'evaluator-started' as const,
      ...progressOf(context),
      evaluator: evaluatorOf(context).name,
    })),
    recordEvaluatorStarted: assignContext(({ context }) =>
      withEvaluation(context, { started: evaluationOf(context).started + 1 }),
    ),
    // What an evaluator said it spent counts toward the cost budget like a round's; it is not the round's usage.
    recordEvaluatorUsage: assignContext(({ context }, params: { usage: RalphUsage | null }) => ({
      usage: addUsage(context.usage, params.usage),
    })),
    reviewVerdict: assignContext(({ context }, outcome: EvaluationOutcome) =>
      withEvaluation(context, {
        review: reviewVerdict(outcome.output, context.call.maxHandoffChars),
        changedFiles: [...outcome.changedFiles],
      }),
    ),
    failEvaluatorStart: assignContext(({ context }, params: { error: unknown }) =>
      workflowFailedIn(
        context,
        evaluatorCouldNotStart(evaluatorOf(context).name, context.round, errorText(params.error)),
        errorText(params.error),
      ),
    ),
    failEvaluator: assignContext(({ context }, params: { error: unknown }) =>
      workflowFailedIn(
        context,
        evaluatorFailed(context.round, errorText(params.error)),
        errorText(params.error),
      ),
    ),
    failEvaluatorChangedWorkspace: assignContext(({ context }) =>
      workflowFailedIn(context, evaluatorChangedWorkspace(context.round, evaluationOf(context).changedFiles)),
    ),
    failVerdictMissing: assignContext(({ context }) => {
      const { problem } = verdictReviewAs(context, 'missing');
      return workflowFailedIn(context, verdictMissing(context.round), problem);
    }),
    failVerdictMalformed: assignContext(({ context }) => {
      const { problem } = verdictReviewAs(context, 'malformed');
      return workflowFailedIn(context, verdictMalformed(context.round, problem), problem);
    }),
    failVerdictOversized: assignContext(({ context }) =>
      workflowFailedIn(
        context,
        verdictOversized(
          context.round,
          verdictReviewAs(context, 'oversized').size,
          context.call.maxHandoffChars,
        ),
      ),
    ),
    recordVerdict: assignContext(({ context }) =>
      withEvaluation(context, { last: { round: context.round, verdict: givenVerdictOf(context) } }),
    ),
    announceVerdict: emitProgress(({ context }) => {
      const { verdict, findings, evidence } = givenVerdictOf(context);
      return {
        type: 'evaluator-finished' as const,
        ...progressOf(context),
        evaluator: evaluatorOf(context).name,
        verdict,
        findings: [...findings],
        evidence: [...evidence],
      };
    }),
    // A completion the evaluator rejected is handed to the next round with its findings.
    rejectByEvaluator: assignContext(({ context }) => ({
      handoff: evaluatorRejectionHandoff(
        handoffOf(context),
        givenVerdictOf(context),
        context.call.maxHandoffChars,
      ),
    })),
    settleEvaluated: assignContext(({ context }) =>
      settled(
        context,
        'complete',
        context.call.guardRails.verify === null ? {} : { verifiedBy: [...verifyOf(context).argv] },
      ),
    ),
    failEvaluatorTimedOut: assignContext(({ context }) => {
      const detail = evaluatorTimedOut(context.round, formatDuration(railOf(context, 'roundTimeoutMs')));
      return workflowFailedIn(context, detail, detail);
    }),
    settleTimeLimitedInEvaluation: assignContext(({ context }) =>
      settled(context, 'budget-limited', {
        limit: {
          kind: 'time',
          maxWallTimeMs: railOf(context, 'maxWallTimeMs'),
          unevaluatedRound: context.round,
        },
      }),
    ),
    announceQuestion: emitProgress(({ context }) => ({
      type: 'question-asked' as const,
      ...progressOf(context),
      question: handoffOf(context).blocker ?? '',
      waitMs: answerWaitOf(context),
    })),
    // The person's answer becomes the next round's handoff, with the blocked report, labelled as a person's words.
    acceptAnswer: enqueueActions(({ context, enqueue }, outcome: AnswerOutcome) => {
      if (outcome.kind !== 'answer') return;
      enqueue.emit({
        type: 'question-answered' as const,
        ...progressOf(context),
        answer: outcome.text,
        ...(outcome.by === undefined ? {} : { by: outcome.by }),
      });
      enqueue.assign({
        handoff: answeredHandoff(handoffOf(context), outcome.text, context.call.maxHandoffChars),
      });
    }),
    settleUnanswered: enqueueActions(
      ({ context, enqueue }, params: { reason: UnansweredReason; detail?: string }) => {
        const question = {
          round: context.round,
          reason: params.reason,
          waitMs: answerWaitOf(context),
          ...(params.detail === undefined ? {} : { detail: params.detail }),
        };
        enqueue.emit({
          type: 'question-unanswered' as const,
          runId: context.runId,
          maxRounds: context.maxRounds,
          ...question,
        });
        enqueue.assign(settled(context, 'blocked', { question }));
      },
    ),
    // Only a started round can be cancelled: validating never waits.
    settleCancelled: assignContext(({ context }) =>
      failed(context, { code: 'cancelled', message: WORKFLOW_CANCELLED }),
    ),
  },
  delays: {
    cancelDeadline: ({ context }) => context.call.terminationGraceMs + KILL_MARGIN_MS,
    // A guard rail that is off still needs a finite delay (setTimeout turns larger ones into ~1 ms); its guard
    // keeps that timer from ever taking a transition, and the engine's clock does not schedule it (rail-clock.ts).
    roundTimeout: ({ context }) => context.call.guardRails.roundTimeoutMs ?? MAX_DURATION_MS,
    // A run taken up again elsewhere (a fleet's takeover) has spent part of its budget already.
    wallClock: ({ context }) => {
      const { maxWallTimeMs, spentWallTimeMs } = context.call.guardRails;
      return maxWallTimeMs === null ? MAX_DURATION_MS : Math.max(0, maxWallTimeMs - (spentWallTimeMs ?? 0));
    },
    limitWait: ({ context }) => context.limitWaitMs ?? MAX_DURATION_MS,
    answerWait: ({ context }) => answerWaitOf(context),
  },
});

/** The `verify-finished` event: how the command ended, and whether the completion stands. */
function verifyFinished(context: RalphContext, outcome: VerifyOutcome, passed: boolean) {
  return {
    type: 'verify-finished' as const,
    ...progressOf(context),
    command: [...verifyOf(context).argv],
    passed,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
  };
}
