import { expect } from 'vitest';
import type { AnswerOutcome, RalphQuestionEnding, UnansweredReason } from '../../src/contract/answers.js';
import type { RalphFailure } from '../../src/contract/errors.js';
import type { EvaluatorVerdict } from '../../src/contract/evaluator-verdict.js';
import type {
  RalphEvaluation,
  RalphLimit,
  RalphProgressEvent,
  RalphReport,
  RalphResultStatus,
  VerifyOutcome,
} from '../../src/contract/types.js';
import type { RalphUsage } from '../../src/contract/usage.js';
import type { RalphOutput } from '../../src/machines/ralph.machine.js';
import { EVALUATOR_NAME, type InputVariant, MODEL_RUN_ID, PROVIDER_NAME } from './input-variants.js';
import {
  ANSWER_OUTCOMES,
  CHILD_FAILED,
  EVALUATOR_USAGE,
  EVENT,
  type ModelEvent,
  ROUND_LIMIT,
  ROUND_USAGE,
  reportVariantsOf,
  USAGE_LIMIT_VARIANT,
  VERIFY_ARGV,
  verdictVariantsOf,
} from './ralph-model.js';
import { reportVariant } from './report-variants.js';
import { type VerdictVariant, verdictVariant } from './verdict-variants.js';

/** Where a run ends, by the name of the machine's state. */
export type EndState = 'complete' | 'blocked' | 'budgetLimited' | 'failed' | 'rejected' | 'cancelled';

/** What the seed rules say a call followed by a sequence of child outcomes must come to. */
export interface Expected {
  /** The final state, or null when the events stop short of one. */
  state: EndState | null;
  output: RalphOutput | null;
  progress: RalphProgressEvent[];
  /** What each round's child was handed: its round and the previous round's report. */
  rounds: { round: number; handoff: RalphReport | null }[];
  /** What each evaluator was handed: the round whose completion it checks, and that round's report. */
  evaluations: { round: number; report: RalphReport }[];
  /** What each wait for a person's answer was asked (`--ask`): the blocked round and its report. */
  questions: { round: number; report: RalphReport }[];
  /** A child still runs when the run settles: it ignored its abort past the cancel deadline. */
  abandoned: boolean;
  /** What the run's context holds at the end. */
  context: {
    objective: string;
    maxRounds: number;
    round: number;
    agentsStarted: number;
    childId: string | null;
    handoff: RalphReport | null;
    /** The verdict on the current round's report, as plain data, or null before it came. */
    review: unknown;
    /** A run with an evaluator: the evaluators started and the last verdict given (absent without one). */
    evaluation?: { started: number; last: { round: number; verdict: EvaluatorVerdict } | null };
  };
}

/** What the offers of a state depend on besides the state: the guard rails that are on, and the budget. */
export interface OfferContext {
  roundTimeout: boolean;
  /** The usage-limit report is still offered (the model allows one wait in a row). */
  limitOffered: boolean;
  /** The wall clock is on and has not run out yet. */
  wallClockRunning: boolean;
  /** A fingerprint of the workspace was taken, so a round can leave it unchanged. */
  fingerprinted: boolean;
  /** The run has an evaluator (its rounds are offered fewer reports: see `reportVariantsOf`). */
  evaluated: boolean;
  /** The run asks a person when a round is blocked (--ask; its rounds are offered fewer reports too). */
  asks: boolean;
  /** An evaluator rejected a completion before (its next ones are offered fewer verdicts: `verdictVariantsOf`). */
  rejectedBefore: boolean;
}

/**
 * What the design says can happen next in each state, by the names `describeEvent` gives: a round's child starts
 * or its provider fails, and the host may cancel; a running child reports (any report at all) or fails, and the
 * host may cancel; a cancelled child stops, or its stop fails, or the deadline passes; nothing follows a final state.
 * A run never rests where its report is reviewed, so no event is ever offered there. With the guard rails on: a
 * round may time out while its child starts or works; the time limit may run out in any state a run rests in; a
 * stopped round's child stops, fails to confirm it or passes the deadline; a verify command passes, fails, times
 * out or cannot start, and the host may cancel it; a fingerprint finds the workspace changed or (once there was
 * one before) unchanged, or fails, and the host may cancel. With an evaluator: it starts or its provider fails, it
 * gives a verdict (any at all) or fails, and the host may cancel, the evaluation's own round timer may pass and the
 * time limit run out, as in a round; a stopped evaluator stops, fails to confirm it or passes the deadline.
 */
export function expectedOffers(state: string, rails: OfferContext): string[] {
  const timeout = rails.roundTimeout ? ['round timeout'] : [];
  const evaluationTimeout = rails.roundTimeout ? ['evaluation times out'] : [];
  const clock = rails.wallClockRunning ? ['time limit runs out'] : [];
  switch (state) {
    case 'running.round.starting':
      return ['CANCEL', 'child started', 'provider fails to start', ...timeout, ...clock];
    case 'running.round.awaitingReport':
      return [
        'CANCEL',
        ...reportVariantsOf(rails.evaluated || rails.asks).map((v) => `report: ${v.name}`),
        ...(rails.limitOffered ? [`report: ${USAGE_LIMIT_VARIANT}`] : []),
        'child fails',
        ...timeout,
        ...clock,
      ];
    case 'cancelling.child':
      return ['child stops', 'stop fails', 'cancel deadline passes', ...clock];
    case 'stoppingRound':
      return ['child stops', 'stop fails', 'stop deadline passes', ...clock];
    case 'running.verifying':
      return ['CANCEL', 'verify passes', 'verify fails', 'verify times out', 'verify cannot start', ...clock];
    case 'running.waitingForLimit':
      return ['CANCEL', 'the limit resets', ...clock];
    case 'running.evaluating.starting':
      return ['CANCEL', 'evaluator started', 'evaluator fails to start', ...evaluationTimeout, ...clock];
    case 'running.evaluating.awaitingVerdict':
      return [
        'CANCEL',
        ...verdictVariantsOf(rails.rejectedBefore).map((v) => `verdict: ${v.name}`),
        'evaluator fails',
        ...evaluationTimeout,
        ...clock,
      ];
    case 'cancelling.evaluator':
      return ['evaluator stops', 'evaluator stop fails', 'cancel deadline passes', ...clock];
    case 'stoppingEvaluator':
      return ['evaluator stops', 'evaluator stop fails', 'evaluator stop deadline passes', ...clock];
    case 'cancelling.verifyCommand':
      return ['verify stops', 'verify stop fails', 'cancel deadline passes', ...clock];
    case 'running.awaitingAnswer':
      return [
        'CANCEL',
        ...ANSWER_OUTCOMES.map((a) => `answer: ${a.name}`),
        'the answer source fails',
        'the answer wait runs out',
        ...clock,
      ];
    case 'running.fingerprinting':
      return [
        'CANCEL',
        ...(rails.fingerprinted ? ['workspace unchanged'] : []),
        'workspace changed',
        'fingerprint fails',
        ...clock,
      ];
    default:
      return [];
  }
}

/**
 * The tags the design gives each state a run can be seen in: `childRunning` while a child may run (one is being
 * started, works, or is being stopped), `settled` once the run is over, and then `succeeded` (an envelope) or
 * `failure` (a refusal, a failure or a cancellation). Sorted.
 */
export function expectedTags(state: string): string[] {
  switch (state) {
    case 'running.round.starting':
    case 'running.round.awaitingReport':
    case 'cancelling.child':
    case 'stoppingRound':
    case 'running.evaluating.starting':
    case 'running.evaluating.awaitingVerdict':
    case 'cancelling.evaluator':
    case 'stoppingEvaluator':
      return ['childRunning'];
    case 'running.verifying':
    case 'cancelling.verifyCommand':
    case 'running.fingerprinting':
    case 'running.waitingForLimit':
    case 'running.awaitingAnswer':
      return [];
    case 'complete':
    case 'blocked':
    case 'budgetLimited':
      return ['settled', 'succeeded'];
    case 'failed':
    case 'rejected':
    case 'cancelled':
      return ['failure', 'settled'];
    default:
      throw new Error(`no run is ever seen in the state ${state}`);
  }
}

// The reference's texts, spelled out here rather than taken from the code under test.
const CANCELLED = 'Ralph workflow was cancelled';
const workflowFailed = (detail: string) => `Ralph workflow failed: ${detail}`;
const childFailed = (round: number, handoff: RalphReport | null) =>
  `Ralph round ${round} child failed before producing a structured report.\n${
    handoff === null
      ? 'No previous handoff was available.'
      : `Last successful handoff:\n${JSON.stringify(handoff, null, 2)}`
  }`;

// The guard rails' texts, for the durations and the command of the model's variants (30m, 2h, `npm test`).
const DURATION_TEXT: Record<number, string> = { 1800000: '30m', 7200000: '2h', 600000: '10m', 2000: '2s' };
const duration = (ms: number): string => {
  const text = DURATION_TEXT[ms];
  if (text === undefined) throw new Error(`the oracle has no text for ${ms} ms`);
  return text;
};
const verifyEnding = (outcome: VerifyOutcome, timeoutMs: number): string =>
  outcome.timedOut
    ? `timed out after ${duration(timeoutMs)} and was stopped`
    : `exited with status ${outcome.exitCode} after ${duration(outcome.durationMs)}`;
/** The handoff after a completion the verify command did not accept: the report as continue, the failure its step. */
const verifyFailureHandoff = (
  report: RalphReport,
  outcome: VerifyOutcome,
  timeoutMs: number,
): RalphReport => ({
  status: 'continue',
  summary: report.summary,
  evidence: report.evidence,
  nextSteps: [
    `The previous round reported the objective complete, but the completion was not accepted: the verify command \`npm test\` ${verifyEnding(outcome, timeoutMs)}. Make it pass, then report complete again.\nThe end of its output:\n${outcome.outputTail}`,
  ],
  blocker: null,
});

// Asking is ralph's own (the reference ends a blocked run): the answered handoff's labels, from contract/answers.ts.
const BLOCKER_LABEL = 'The previous round was blocked:';
const ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";
/**
 * The handoff after a person answered a blocked round: its report as continue, the blocker and the answer (labelled)
 * its next steps; an answer the handoff cap cannot hold is cut to its longest start that fits, marked with `…`.
 */
function answeredHandoff(report: RalphReport, answer: string, cap: number): RalphReport {
  const labelled = (text: string): RalphReport => ({
    ...report,
    status: 'continue',
    blocker: null,
    nextSteps: [`${BLOCKER_LABEL} ${report.blocker}`, `${ANSWER_LABEL} ${text}`],
  });
  const fits = (handoff: RalphReport) => JSON.stringify(handoff).length <= cap;
  if (fits(labelled(answer))) return labelled(answer);
  for (let kept = answer.length - 1; kept >= 0; kept -= 1) {
    const cut = labelled(`${answer.slice(0, kept)}…`);
    if (fits(cut)) return cut;
  }
  throw new Error('the model has no answer whose labels alone are over the handoff cap');
}

// The evaluator's texts are ralph's own (contract/evaluator-messages.ts), spelled out here for the model's names.
/** The handoff after a completion an evaluator rejected: the report as continue, the findings its next steps. */
const rejectionHandoff = (report: RalphReport, verdict: EvaluatorVerdict): RalphReport => ({
  ...report,
  status: 'continue',
  blocker: null,
  nextSteps: [
    'An independent evaluator checked the workspace and rejected the reported completion; address its findings:',
    ...verdict.findings.map((finding) => `Evaluator finding: ${finding}`),
  ],
});

/**
 * The expected end of a call, worked out from the seed rules alone: the checks refuse a call before anything
 * starts; each round starts one child; a provider that cannot start it, or a report that is missing, malformed or
 * over the handoff cap, fails the workflow; a child failing before its report fails the round with the last good
 * handoff; complete and blocked end the run, and a continue report at the cap ends it budget-limited; a cancelled
 * run ends cancelled whichever way its child stops. The guard rails, when on: a round that times out is stopped and
 * fails as that round's child failure; once the time limit runs out a running round is stopped and no round starts,
 * the run ending budget-limited with the last good report (failed when there is none); a complete report is
 * accepted only when the verify command passes, else the next round (within the cap) gets the report and the
 * failure; a verify command that cannot start fails the workflow; the workspace is fingerprinted before round 1 and
 * after each round with work remaining, and that many unchanged rounds in a row end the run budget-limited.
 * An evaluator, when configured, checks a completion (once a verify command passed): its accept completes the run,
 * its reject hands the report with its findings to the next round (within the cap, else budget-limited), and a
 * missing, malformed or oversized verdict, a changed workspace, an evaluator that cannot start or fails, or one
 * the round timeout stops, fails the workflow; the time limit stopping it ends the run budget-limited, the
 * completion not accepted; what it says it spent counts toward the cost budget. A run resumed while its evaluator
 * ran evaluates the same completion again.
 */
export function expectedEnd(variant: InputVariant, events: readonly ModelEvent[]): Expected {
  const progress: RalphProgressEvent[] = [];
  const rounds: Expected['rounds'] = [];
  const evaluations: Expected['evaluations'] = [];
  const questions: Expected['questions'] = [];
  if ('refusal' in variant.expected) {
    const failure: RalphFailure = { code: 'refused', message: variant.expected.refusal };
    const context = {
      objective: '',
      maxRounds: 0,
      round: 0,
      agentsStarted: 0,
      childId: null,
      handoff: null,
      review: null,
    };
    return {
      state: 'rejected',
      output: { ok: false, failure },
      progress,
      rounds,
      evaluations,
      questions,
      abandoned: false,
      context,
    };
  }
  const cap = variant.expected.cap;
  const objective = (variant.args as { objective: string }).objective;
  const maxHandoffChars = variant.config.maxHandoffChars;
  const runId = MODEL_RUN_ID;
  // A resumed run picks up after its finished rounds, with their last report and its children counted.
  let round = variant.resume?.round ?? 0;
  let agentsStarted = variant.resume?.agentsStarted ?? 0;
  let childId: string | null = null;
  let handoff: RalphReport | null = variant.resume?.handoff ?? null;
  let review: unknown = null;
  const rails = variant.config;
  const verifyTimeoutMs = rails.verify?.timeoutMs ?? 0;
  type Phase =
    | 'round'
    | 'cancelling'
    | 'stopping'
    | 'verifying'
    | 'cancellingVerify'
    | 'fingerprinting'
    | 'waitingForLimit'
    | 'evaluating'
    | 'cancellingEvaluator'
    | 'stoppingEvaluator'
    | 'awaitingAnswer';
  let phase: Phase = 'round';
  let outOfTime = false;
  let stopReason: 'round-timeout' | 'time-limit' | null = null;
  let fingerprint: string | null = null;
  let idleRounds = 0;
  /**
   * What this run's agents said they used (a resumed run counts its own): every report, and every round that hit a
   * usage limit, says it used ROUND_USAGE, every verdict EVALUATOR_USAGE, and all of it counts.
   */
  const spent: Record<'costUsd' | 'inputTokens' | 'outputTokens' | 'turns', number> = {
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    turns: 0,
  };
  const spend = (usage: RalphUsage) => {
    for (const [field, amount] of Object.entries(usage)) spent[field as keyof typeof spent] += amount;
  };
  const totalUsage = (): RalphUsage => ({ ...spent });
  const evaluator = variant.evaluator !== undefined;
  let evaluationsStarted = 0;
  let lastVerdict: { round: number; verdict: EvaluatorVerdict } | null = null;
  /** The envelope's account of the last verdict, when one was given. */
  const evaluationOf = (): { evaluation?: RalphEvaluation } =>
    lastVerdict === null
      ? {}
      : {
          evaluation: {
            evaluator: EVALUATOR_NAME,
            round: lastVerdict.round,
            verdict: lastVerdict.verdict.verdict,
            findings: lastVerdict.verdict.findings,
            evidence: lastVerdict.verdict.evidence,
            evaluatorsStarted: evaluationsStarted,
          },
        };

  const beginRound = () => {
    round += 1;
    childId = null;
    review = null;
    rounds.push({ round, handoff });
    progress.push({ type: 'round-started', runId, round, maxRounds: cap });
  };
  const context = () => ({
    objective,
    maxRounds: cap,
    round,
    agentsStarted,
    childId,
    handoff,
    review,
    ...(evaluator ? { evaluation: { started: evaluationsStarted, last: lastVerdict } } : {}),
  });
  const end = (state: EndState | null, output: RalphOutput | null, abandoned = false): Expected => ({
    state,
    output,
    progress,
    rounds,
    evaluations,
    questions,
    abandoned,
    context: context(),
  });
  const failed = (failure: Omit<RalphFailure, 'round' | 'lastHandoff'>, abandoned = false) =>
    end('failed', { ok: false, failure: { ...failure, round, lastHandoff: handoff } }, abandoned);
  const settled = (
    state: EndState,
    status: RalphResultStatus,
    report: RalphReport,
    extra: { limit?: RalphLimit; verifiedBy?: string[]; question?: RalphQuestionEnding } = {},
    abandoned = false,
  ) =>
    end(
      state,
      {
        ok: true,
        envelope: {
          runId,
          agentsStarted,
          result: { status, rounds: round, report, ...extra, ...evaluationOf() },
        },
      },
      abandoned,
    );
  /** Budget-limited by the time limit; `unfinished` when it ran out in a round (or its wait), which never reported. */
  const timeLimited = (abandoned = false, unfinished = false) =>
    settled(
      'budgetLimited',
      'budget-limited',
      handoff as RalphReport,
      {
        limit: {
          kind: 'time',
          maxWallTimeMs: rails.maxWallTimeMs as number,
          ...(unfinished ? { unfinishedRound: round } : {}),
        },
      },
      abandoned,
    );
  /** The gate before a round that follows a verify command or a fingerprint: the time limit. */
  const gate = (): Expected | null => {
    if (outOfTime && handoff === null) {
      const detail = `the ${duration(rails.maxWallTimeMs as number)} time limit ran out before round 1 started`;
      return failed({ code: 'workflow-failed', message: workflowFailed(detail), detail });
    }
    if (outOfTime) return timeLimited();
    if (costSpent()) return costLimited();
    beginRound();
    phase = 'round';
    return null;
  };
  /** The cost budget is on and the rounds' reported cost has reached it (every round in the model costs $1). */
  const costSpent = () => rails.maxCostUsd !== undefined && spent.costUsd >= rails.maxCostUsd;
  const costLimited = () =>
    settled('budgetLimited', 'budget-limited', handoff as RalphReport, {
      limit: { kind: 'cost', maxCostUsd: rails.maxCostUsd as number, spentUsd: spent.costUsd },
    });
  /**
   * A blocked report: with --ask, within the round cap, the time and the cost budget, the run asks a person and waits;
   * else (and always without --ask) the run ends blocked, as in the reference.
   */
  const blocked = (report: RalphReport): Expected | null => {
    if (rails.waitForAnswersMs === undefined || round >= cap || outOfTime || costSpent())
      return settled('blocked', 'blocked', report);
    ask();
    return null;
  };
  /** The run puts the blocker of the round it is in to a person and waits. */
  const ask = () => {
    const report = handoff as RalphReport;
    questions.push({ round, report });
    progress.push({
      type: 'question-asked',
      runId,
      round,
      maxRounds: cap,
      question: String(report.blocker),
      waitMs: rails.waitForAnswersMs as number,
    });
    phase = 'awaitingAnswer';
  };
  /** The run stops waiting without an answer, and ends blocked saying why. */
  const unanswered = (reason: UnansweredReason, detail?: string): Expected => {
    const question: RalphQuestionEnding = {
      round,
      reason,
      waitMs: rails.waitForAnswersMs as number,
      ...(detail === undefined ? {} : { detail }),
    };
    progress.push({ type: 'question-unanswered', runId, maxRounds: cap, ...question });
    return settled('blocked', 'blocked', handoff as RalphReport, { question });
  };
  /** A person answered: the next round (within the budgets) starts with the blocked report and the answer. */
  const answered = (outcome: AnswerOutcome): Expected | null => {
    if (outcome.kind === 'give-up') return unanswered('given-up');
    if (outcome.kind === 'timed-out') return unanswered('timed-out');
    progress.push({
      type: 'question-answered',
      runId,
      round,
      maxRounds: cap,
      answer: outcome.text,
      ...(outcome.by === undefined ? {} : { by: outcome.by }),
    });
    handoff = answeredHandoff(handoff as RalphReport, outcome.text, maxHandoffChars);
    expect(JSON.stringify(handoff).length, 'the handoff after an answer fits the cap').toBeLessThanOrEqual(
      maxHandoffChars,
    );
    return gate();
  };
  /** A reported completion goes to the evaluator: one fresh evaluator is asked to check it. */
  const evaluate = () => {
    evaluations.push({ round, report: handoff as RalphReport });
    progress.push({ type: 'evaluator-started', runId, round, maxRounds: cap, evaluator: EVALUATOR_NAME });
    phase = 'evaluating';
  };
  /** How a stopped evaluation ends, once its evaluator stopped (or was abandoned). */
  const evaluatorStopped = (abandoned: boolean): Expected => {
    if (stopReason === 'round-timeout') {
      const detail = `the evaluator of round ${round} timed out: it gave no verdict within the round timeout of ${duration(rails.roundTimeoutMs as number)} and was stopped`;
      return failed({ code: 'workflow-failed', message: workflowFailed(detail), detail }, abandoned);
    }
    return settled(
      'budgetLimited',
      'budget-limited',
      handoff as RalphReport,
      { limit: { kind: 'time', maxWallTimeMs: rails.maxWallTimeMs as number, unevaluatedRound: round } },
      abandoned,
    );
  };
  /**
   * After a round left work remaining: the round cap, then (right after a report) the cost budget, then the idle
   * watch, then the gate (the time limit and the cost budget).
   */
  const afterRound = (afterReport: boolean): Expected | null => {
    if (round >= cap) return settled('budgetLimited', 'budget-limited', handoff as RalphReport);
    if (afterReport && costSpent()) return costLimited();
    if (rails.maxIdleRounds !== undefined) {
      phase = 'fingerprinting';
      return null;
    }
    return gate();
  };
  /** How a round stopped by a guard rail ends, once its child stopped (or was abandoned). */
  const roundStopped = (abandoned: boolean): Expected => {
    if (stopReason === 'round-timeout')
      return failed(
        {
          code: 'child-failed',
          message: childFailed(round, handoff),
          detail: `round ${round} timed out: its child did not report within the round timeout of ${duration(rails.roundTimeoutMs as number)} and was stopped`,
        },
        abandoned,
      );
    if (handoff === null)
      return failed(
        {
          code: 'child-failed',
          message: childFailed(round, handoff),
          detail: `the ${duration(rails.maxWallTimeMs as number)} time limit ran out during round ${round}, before any round had reported; its child was stopped`,
        },
        abandoned,
      );
    return timeLimited(abandoned, true);
  };
  const cancelled = (abandoned: boolean) =>
    end(
      'cancelled',
      { ok: false, failure: { code: 'cancelled', message: CANCELLED, round, lastHandoff: handoff } },
      abandoned,
    );

  /** The round timeout passed in a round or an evaluation: it is announced and what runs is stopped. */
  const timedOut = (stopping: 'stopping' | 'stoppingEvaluator') => {
    stopReason = 'round-timeout';
    phase = stopping;
    progress.push({
      type: 'round-timed-out',
      runId,
      round,
      maxRounds: cap,
      roundTimeoutMs: rails.roundTimeoutMs as number,
    });
  };
  /** What follows an evaluator's answer: a failure, the run settled, or (null) the run going on. */
  const verdictGiven = ({ ruling, changedFiles }: VerdictVariant): Expected | null => {
    const failedWith = (message: string, detail?: string) =>
      failed({
        code: 'workflow-failed',
        message: workflowFailed(message),
        ...(detail === undefined ? {} : { detail }),
      });
    switch (ruling.kind) {
      case 'changed':
        return failedWith(
          `the evaluator of round ${round} changed the workspace, which an evaluator must not do: ${changedFiles.join(', ')}`,
        );
      case 'missing':
        return failedWith(
          `the evaluator of round ${round} finished without a structured verdict`,
          ruling.problem,
        );
      case 'malformed':
        return failedWith(
          `the evaluator's verdict on round ${round} is malformed: ${ruling.problem}`,
          ruling.problem,
        );
      case 'oversized':
        return failedWith(
          `the evaluator's verdict on round ${round} is ${ruling.size} characters, over the handoff cap of ${maxHandoffChars}`,
        );
    }
    const { verdict } = ruling;
    lastVerdict = { round, verdict };
    progress.push({
      type: 'evaluator-finished',
      runId,
      round,
      maxRounds: cap,
      evaluator: EVALUATOR_NAME,
      ...verdict,
    });
    if (verdict.verdict === 'accept')
      return settled(
        'complete',
        'complete',
        handoff as RalphReport,
        rails.verify === undefined ? {} : { verifiedBy: VERIFY_ARGV },
      );
    handoff = rejectionHandoff(handoff as RalphReport, verdict);
    expect(JSON.stringify(handoff).length, 'the handoff after a rejection fits the cap').toBeLessThanOrEqual(
      maxHandoffChars,
    );
    return afterRound(false);
  };

  if (variant.resume?.evaluating === true) evaluate();
  else if (variant.resume?.awaitingAnswer === true) ask();
  else if (rails.maxIdleRounds !== undefined) phase = 'fingerprinting';
  else beginRound();
  for (const event of events) {
    switch (event.type) {
      case EVENT.childStarted: {
        agentsStarted += 1;
        childId = String(event.childId);
        progress.push({ type: 'child-started', runId, round, maxRounds: cap, childId });
        break;
      }
      case EVENT.roundFailed:
        if (event.variant === CHILD_FAILED)
          return failed({
            code: 'child-failed',
            message: childFailed(round, handoff),
            detail: String(event.error),
          });
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(
            `subagent provider "${PROVIDER_NAME}" failed to start round ${round}: ${event.error}`,
          ),
          detail: String(event.error),
        });
      case EVENT.reported: {
        if (event.variant === USAGE_LIMIT_VARIANT) {
          spend(ROUND_USAGE);
          if (rails.waitOnLimits !== true)
            return failed({
              code: 'child-failed',
              message: childFailed(round, handoff),
              detail: ROUND_LIMIT.detail,
            });
          progress.push({
            type: 'limit-wait-started',
            runId,
            round,
            maxRounds: cap,
            waitMs: ROUND_LIMIT.retryInMs + 1_000,
            detail: ROUND_LIMIT.detail,
          });
          phase = 'waitingForLimit';
          break;
        }
        spend(ROUND_USAGE);
        const { verdict, output } = reportVariant(String(event.variant));
        if (verdict.kind === 'missing') {
          review =
            verdict.problem === undefined
              ? { verdict: 'missing' }
              : { verdict: 'missing', problem: verdict.problem };
          return failed({
            code: 'workflow-failed',
            message: workflowFailed(`round ${round} child finished without a structured report`),
            ...(verdict.problem === undefined ? {} : { detail: verdict.problem }),
          });
        }
        if (verdict.kind === 'malformed') {
          review = { verdict: 'malformed', problem: verdict.problem };
          return failed({
            code: 'workflow-failed',
            message: workflowFailed(`round ${round} report is malformed: ${verdict.problem}`),
            detail: verdict.problem,
          });
        }
        const report = output as RalphReport;
        const size = JSON.stringify(report).length;
        if (size > maxHandoffChars) {
          review = { verdict: 'oversized', size };
          return failed({
            code: 'workflow-failed',
            message: workflowFailed(
              `round ${round} report is ${size} characters, over the handoff cap of ${maxHandoffChars}`,
            ),
          });
        }
        review = { verdict: 'accepted', report };
        handoff = report;
        progress.push({
          type: 'report-accepted',
          runId,
          round,
          maxRounds: cap,
          report,
          usage: ROUND_USAGE,
          totalUsage: totalUsage(),
        });
        if (verdict.status === 'complete' && rails.verify !== undefined) {
          progress.push({ type: 'verify-started', runId, round, maxRounds: cap, command: VERIFY_ARGV });
          phase = 'verifying';
          break;
        }
        if (verdict.status === 'complete' && evaluator) {
          evaluate();
          break;
        }
        if (verdict.status === 'complete') return settled('complete', 'complete', report);
        if (verdict.status === 'blocked') {
          const next = blocked(report);
          if (next !== null) return next;
          break;
        }
        const next = afterRound(true);
        if (next !== null) return next;
        break;
      }
      case EVENT.limitWaitOver:
        // The round runs again under its own number: the wait costs no round of the cap.
        round -= 1;
        beginRound();
        phase = 'round';
        break;
      case EVENT.cancel:
        // No child runs while the run fingerprints, waits for a limit or for an answer: it ends at once.
        // (Casts: TypeScript narrows `phase` as if the closures that set it never ran.)
        if (['fingerprinting', 'waitingForLimit', 'awaitingAnswer'].includes(phase as Phase))
          return cancelled(false);
        if ((phase as Phase) === 'evaluating') phase = 'cancellingEvaluator';
        else phase = phase === 'verifying' ? 'cancellingVerify' : 'cancelling';
        break;
      case EVENT.childStopped:
      case EVENT.stopFailed:
        return phase === 'stopping' ? roundStopped(false) : cancelled(false);
      case EVENT.cancelDeadline:
        // A child or an evaluator past the deadline is abandoned; a verify command is stopped whole.
        return cancelled(phase === 'cancelling' || phase === 'cancellingEvaluator');
      case EVENT.roundTimedOut:
        timedOut('stopping');
        break;
      case EVENT.roundStopDeadline:
        return roundStopped(true);
      case EVENT.wallClock:
        outOfTime = true;
        progress.push({
          type: 'time-limit-reached',
          runId,
          round,
          maxRounds: cap,
          maxWallTimeMs: rails.maxWallTimeMs as number,
        });
        if (phase === 'round') {
          stopReason = 'time-limit';
          phase = 'stopping';
        }
        if ((phase as Phase) === 'evaluating') {
          stopReason = 'time-limit';
          phase = 'stoppingEvaluator';
        }
        if ((phase as Phase) === 'awaitingAnswer') return unanswered('time-limit');
        if (phase === 'waitingForLimit') {
          if (handoff !== null) return timeLimited(false, true);
          const detail = `the ${duration(rails.maxWallTimeMs as number)} time limit ran out while round ${round} waited for a usage limit to reset, before any round had reported`;
          return failed({ code: 'workflow-failed', message: workflowFailed(detail), detail });
        }
        break;
      case EVENT.verified: {
        const outcome = event.output as VerifyOutcome;
        const passed = outcome.exitCode === 0 && !outcome.timedOut;
        const { exitCode, signal, timedOut, durationMs } = outcome;
        progress.push({
          type: 'verify-finished',
          runId,
          round,
          maxRounds: cap,
          command: VERIFY_ARGV,
          passed,
          exitCode,
          signal,
          timedOut,
          durationMs,
        });
        if (passed && evaluator) {
          evaluate();
          break;
        }
        if (passed)
          return settled('complete', 'complete', handoff as RalphReport, { verifiedBy: VERIFY_ARGV });
        handoff = verifyFailureHandoff(handoff as RalphReport, outcome, verifyTimeoutMs);
        expect(
          JSON.stringify(handoff).length,
          'the handoff after a failed verify fits the cap',
        ).toBeLessThanOrEqual(maxHandoffChars);
        const next = afterRound(false);
        if (next !== null) return next;
        break;
      }
      case EVENT.verifyCannotStart:
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(
            `round ${round} reported complete, but the verify command \`npm test\` could not start: ${event.error}`,
          ),
          detail: String(event.error),
        });
      case EVENT.verifyStopped:
      case EVENT.verifyStopFailed:
        // No child runs while the verify command does: nothing is abandoned, whichever way it stops.
        return cancelled(false);
      case EVENT.fingerprinted: {
        const found = String(event.output);
        if (round > 0 && found === fingerprint) {
          idleRounds += 1;
          fingerprint = found;
          progress.push({
            type: 'workspace-unchanged',
            runId,
            round,
            maxRounds: cap,
            idleRounds,
            maxIdleRounds: rails.maxIdleRounds as number,
          });
          if (idleRounds >= (rails.maxIdleRounds as number))
            return settled('budgetLimited', 'budget-limited', handoff as RalphReport, {
              limit: { kind: 'idle', maxIdleRounds: rails.maxIdleRounds as number },
            });
        } else {
          idleRounds = 0;
          fingerprint = found;
        }
        const next = gate();
        if (next !== null) return next;
        break;
      }
      case EVENT.fingerprintFailed: {
        const when = round === 0 ? 'before round 1' : `after round ${round}`;
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(`the workspace fingerprint ${when} could not be taken: ${event.error}`),
          detail: String(event.error),
        });
      }
      case EVENT.evaluatorStarted:
        evaluationsStarted += 1;
        break;
      case EVENT.evaluatorStartFailed:
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(
            `evaluator provider "${EVALUATOR_NAME}" failed to start the evaluation of round ${round}: ${event.error}`,
          ),
          detail: String(event.error),
        });
      case EVENT.evaluatorFailed:
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(
            `the evaluator of round ${round} failed before it gave a verdict: ${event.error}`,
          ),
          detail: String(event.error),
        });
      case EVENT.verdict: {
        spend(EVALUATOR_USAGE);
        const next = verdictGiven(verdictVariant(String(event.variant)));
        if (next !== null) return next;
        break;
      }
      case EVENT.evaluationTimedOut:
        timedOut('stoppingEvaluator');
        break;
      case EVENT.evaluatorStopped:
      case EVENT.evaluatorStopFailed:
        return phase === 'stoppingEvaluator' ? evaluatorStopped(false) : cancelled(false);
      case EVENT.evaluatorStopDeadline:
        return evaluatorStopped(true);
      case EVENT.answered: {
        const next = answered(event.output as AnswerOutcome);
        if (next !== null) return next;
        break;
      }
      case EVENT.answerSourceFailed:
        return unanswered('unavailable', String(event.error));
      case EVENT.answerWaitOver:
        return unanswered('timed-out');
      default:
        throw new Error(`the oracle does not know the event ${event.type}`);
    }
  }
  return end(null, null);
}
