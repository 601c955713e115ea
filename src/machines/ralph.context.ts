import type { RalphQuestion } from '../contract/answers.js';
import { objectiveOf, requestedMaxRoundsOf } from '../contract/call.js';
import { MAX_DURATION_MS } from '../contract/duration.js';
import type { RalphFailure } from '../contract/errors.js';
import { renderEvaluatorPrompt } from '../contract/evaluator-prompt.js';
import { verdictJsonSchemaCopy } from '../contract/evaluator-verdict.js';
import { renderRoundPrompt } from '../contract/prompt.js';
import { reportJsonSchemaCopy } from '../contract/round-report.js';
import type { ReportReview } from '../contract/round-report-review.js';
import type {
  AgentRef,
  ChildRequest,
  RalphEnvelope,
  RalphEvaluation,
  RalphReport,
  RalphResultStatus,
  VerifySpec,
} from '../contract/types.js';
import {
  type EvaluationContext,
  type FingerprintRequest,
  NO_GUARD_RAILS,
  type ProviderSnapshot,
  type RalphContext,
  type RalphMachineInput,
  type RalphOutput,
  type RoundLimit,
  type RoundOutcome,
  type RoundRef,
  type VerifyRequest,
} from './ralph.types.js';

// What the chart's implementations read and write: the context a run starts with, what each invoke is given, and
// the outcomes a run settles with. Plain functions of the context, so ralph.setup.ts stays a list of names.

/** The context a run starts with: the call as given, nothing accepted yet. */
export const initialContext = ({ input }: { input: RalphMachineInput }): RalphContext => ({
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
    // Only with an evaluator, so that the context (and a recording's snapshots) of a run without one is unchanged.
    ...(input.evaluator === undefined ? {} : { evaluator: input.evaluator }),
    ...(input.sandbox === undefined ? {} : { sandbox: input.sandbox }),
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
  ...(input.evaluator === undefined
    ? {}
    : { evaluation: { started: 0, review: null, changedFiles: [], last: null } satisfies EvaluationContext }),
});

/**
 * The context with an assignment's update: a literal of the context's keys, in `initialContext`'s order (the order of
 * every context a run holds), then the update's values (ralph.setup.ts's `assignContext`: 4 assignments a round, each
 * copying 18 keys, where a spread is 3–5× slower: BENCHMARKS.md, issue 35: the round, second pass).
 */
export function contextWith(context: RalphContext, update: Partial<RalphContext>): RalphContext {
  const next: RalphContext = {
    runId: context.runId,
    call: context.call,
    objective: context.objective,
    maxRounds: context.maxRounds,
    round: context.round,
    agentsStarted: context.agentsStarted,
    childId: context.childId,
    handoff: context.handoff,
    review: context.review,
    outcome: context.outcome,
    outOfTime: context.outOfTime,
    stopReason: context.stopReason,
    fingerprint: context.fingerprint,
    idleRounds: context.idleRounds,
    roundUsage: context.roundUsage,
    usage: context.usage,
    limitWaits: context.limitWaits,
    limitWaitMs: context.limitWaitMs,
  };
  if ('evaluation' in context) next.evaluation = context.evaluation;
  for (const key in update)
    (next as unknown as Record<string, unknown>)[key] = update[key as keyof RalphContext];
  return next;
}

/** A fault of the machine itself (a branch taken without what its guard checked), never of the child. */
function machineFault(what: string): never {
  throw new Error(`ralphMachine: ${what}`);
}

/** The calling agent of an accepted call (validating refuses a call without one). */
export const agentOf = (context: RalphContext): AgentRef =>
  context.call.agent ?? machineFault('an accepted call has no calling agent');

/** The verify command of a run that verifies (only `completionNeedsVerifying` leads to where it is read). */
export const verifyOf = (context: RalphContext): VerifySpec =>
  context.call.guardRails.verify ?? machineFault('a run without a verify command is verifying');

/** The evaluator of a run that evaluates (only `completionNeedsEvaluating` leads to where it is read). */
export const evaluatorOf = (context: RalphContext): ProviderSnapshot =>
  context.call.evaluator ?? machineFault('a run without an evaluator is evaluating');

/** The evaluations of a run that evaluates. */
export const evaluationOf = (context: RalphContext): EvaluationContext =>
  context.evaluation ?? machineFault('a run without an evaluator has no evaluations');

/** A guard rail's setting (a time, a count, a budget) read on a path only that rail, turned on, leads to. */
export const railOf = (
  context: RalphContext,
  rail: 'roundTimeoutMs' | 'maxWallTimeMs' | 'maxIdleRounds' | 'maxCostUsd',
): number => context.call.guardRails[rail] ?? machineFault(`the ${rail} guard rail is off`);

/** The limit a round ended on (only `roundHitLimit*` leads to where it is read). */
export const limitOf = (outcome: RoundOutcome): RoundLimit =>
  outcome.limit ?? machineFault('a round that hit no limit is treated as one');

/**
 * The review in the context, as the verdict the guard of the branch being taken has just read; anything else would
 * be a fault of the machine itself, not of the child.
 */
export function reviewAs<V extends ReportReview['verdict']>(
  review: ReportReview | null,
  verdict: V,
): Extract<ReportReview, { verdict: V }> {
  if (review?.verdict !== verdict)
    machineFault(`expected a ${verdict} review, found ${review?.verdict ?? 'none'}`);
  return review as Extract<ReportReview, { verdict: V }>;
}

/** What every progress event of a run says first: which run, which round, of how many. */
export const progressOf = (context: RalphContext) => ({
  runId: context.runId,
  round: context.round,
  maxRounds: context.maxRounds,
});

/**
 * What `runRound` is given: one fresh child's request, its prompt rendered from the objective and the handoff. Built
 * field by field, once a round, without spreading `progressOf`'s object (the round's hot path: see BENCHMARKS.md).
 */
export const childRequestOf = ({ context }: { context: RalphContext }): ChildRequest => {
  const { runId, round, maxRounds, objective, handoff } = context;
  const parent = agentOf(context);
  return {
    runId,
    round,
    maxRounds,
    objective,
    handoff,
    prompt: renderRoundPrompt({ objective, round, maxRounds, handoff }),
    outputSchema: reportJsonSchemaCopy(),
    cwd: parent.cwd,
    parent,
    // The deployment's cap, so a report tool can check a report against it within the round.
    maxHandoffChars: context.call.maxHandoffChars,
  };
};

/**
 * What `startEvaluator` is given: one fresh evaluator's request, its prompt rendered from the objective and the
 * round's complete report alone (no conversation, no earlier verdict), and the verdict's schema as its output schema.
 */
export const evaluatorRequestOf = ({ context }: { context: RalphContext }): ChildRequest => {
  const { runId, round, maxRounds, objective } = context;
  const report = handoffOf(context);
  const parent = agentOf(context);
  return {
    runId,
    round,
    maxRounds,
    objective,
    handoff: report,
    prompt: renderEvaluatorPrompt({ objective, round, report }),
    outputSchema: verdictJsonSchemaCopy(),
    cwd: parent.cwd,
    parent,
    maxHandoffChars: context.call.maxHandoffChars,
    role: 'evaluator',
  };
};

/** What the actors that wait on this round's child (or its verify command) are given. */
export const roundRefOf = ({ context }: { context: RalphContext }): RoundRef => ({
  runId: context.runId,
  round: context.round,
});

/** What `runVerify` is given: the run's verify command, in the calling agent's workspace. */
export const verifyRequestOf = ({ context }: { context: RalphContext }): VerifyRequest => ({
  ...roundRefOf({ context }),
  cwd: agentOf(context).cwd,
  verify: verifyOf(context),
  terminationGraceMs: context.call.terminationGraceMs,
  ...(context.call.sandbox === undefined ? {} : { sandbox: context.call.sandbox }),
});

/** What `fingerprintWorkspace` is given: the calling agent's workspace. */
export const fingerprintRequestOf = ({ context }: { context: RalphContext }): FingerprintRequest => ({
  ...roundRefOf({ context }),
  cwd: agentOf(context).cwd,
});

/** The run ended with a failure given whole (a refusal names no round). */
export const fail = (failure: RalphFailure): { outcome: RalphOutput } => ({
  outcome: { ok: false, failure },
});

/** The run failed in its current round: the failure names that round and keeps the last good handoff. */
export const failed = (
  context: RalphContext,
  failure: Omit<RalphFailure, 'round' | 'lastHandoff'>,
): { outcome: RalphOutput } =>
  fail({ ...failure, round: context.round, lastHandoff: context.handoff } as RalphFailure);

/**
 * The run settled with an envelope: the reference's fields, then what a guard rail adds (`limit`, `verifiedBy`), so
 * a reference run's envelope is byte for byte the reference's.
 */
export const settled = (
  context: RalphContext,
  status: RalphResultStatus,
  added: Pick<RalphEnvelope['result'], 'limit' | 'verifiedBy' | 'question'> = {},
): { outcome: RalphOutput } => {
  const evaluation = lastEvaluationOf(context);
  return {
    outcome: {
      ok: true,
      envelope: {
        runId: context.runId,
        agentsStarted: context.agentsStarted,
        result: {
          status,
          rounds: context.round,
          // Every path here passed an accepted report, a zero cost budget before round 1 aside: kept as it was.
          report: context.handoff as RalphReport,
          ...added,
          ...(evaluation === undefined ? {} : { evaluation }),
        },
      },
    },
  };
};

/** The envelope's account of the run's last verdict; undefined when no evaluator gave one. */
function lastEvaluationOf(context: RalphContext): RalphEvaluation | undefined {
  const last = context.evaluation?.last;
  if (last === undefined || last === null) return undefined;
  const { verdict, findings, evidence } = last.verdict;
  return {
    evaluator: evaluatorOf(context).name,
    round: last.round,
    verdict,
    findings: [...findings],
    evidence: [...evidence],
    evaluatorsStarted: evaluationOf(context).started,
  };
}

/** The run's cost budget (USD), or null when it has none. */
export const costBudgetOf = (context: RalphContext): number | null =>
  context.call.guardRails.maxCostUsd ?? null;

/** What the run's rounds said they cost so far (USD). */
export const spentUsdOf = (context: RalphContext): number => context.usage?.costUsd ?? 0;

/** The rounds whose spend a resumed run could not count (empty for a run that was never resumed). */
export const uncountedRoundsOf = (context: RalphContext): readonly number[] =>
  context.call.resumeFrom?.uncountedRounds ?? [];

/** The accepted report a settled or handed-off run carries (only an accepted report is ever the handoff). */
export const handoffOf = (context: RalphContext): RalphReport =>
  context.handoff ?? machineFault('no report was accepted yet');

/** How long a blocked round waits for an answer (ms); a finite delay even where asking is off (never taken there). */
export function answerWaitOf(context: RalphContext): number {
  return context.call.guardRails.waitForAnswersMs ?? MAX_DURATION_MS;
}

/** What `awaitAnswer` is given: the blocked round's question, while the handoff is its report. */
export const questionOf = ({ context }: { context: RalphContext }): RalphQuestion => ({
  runId: context.runId,
  round: context.round,
  maxRounds: context.maxRounds,
  question: handoffOf(context).blocker ?? '',
  report: handoffOf(context),
  waitMs: answerWaitOf(context),
});
