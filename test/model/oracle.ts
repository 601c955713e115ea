import type { RalphFailure } from '../../src/contract/errors.js';
import type { RalphProgressEvent, RalphReport, RalphResultStatus } from '../../src/contract/types.js';
import type { RalphOutput } from '../../src/machines/ralph.machine.js';
import { type InputVariant, MODEL_RUN_ID, PROVIDER_NAME } from './input-variants.js';
import { EVENT, type ModelEvent } from './ralph-model.js';
import { REPORT_VARIANTS, reportVariant } from './report-variants.js';

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
  };
}

/**
 * What the design says can happen next in each state, by the names `describeEvent` gives: a round's child starts
 * or its provider fails, and the host may cancel; a running child reports (any report at all) or fails, and the
 * host may cancel; a cancelled child stops, or its stop fails, or the deadline passes; nothing follows a final state.
 * A run never rests where its report is reviewed, so no event is ever offered there.
 */
export function expectedOffers(state: string): string[] {
  switch (state) {
    case 'round':
      return ['CANCEL', 'child started', 'provider fails to start'];
    case 'awaitingReport':
      return ['CANCEL', ...REPORT_VARIANTS.map((v) => `report: ${v.name}`), 'child fails'];
    case 'cancelling':
      return ['child stops', 'stop fails', 'cancel deadline passes'];
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
    case 'round':
    case 'awaitingReport':
    case 'cancelling':
      return ['childRunning'];
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

/**
 * The expected end of a call, worked out from the seed rules alone: the checks refuse a call before anything
 * starts; each round starts one child; a provider that cannot start it, or a report that is missing, malformed or
 * over the handoff cap, fails the workflow; a child failing before its report fails the round with the last good
 * handoff; complete and blocked end the run, and a continue report at the cap ends it budget-limited; a cancelled
 * run ends cancelled whichever way its child stops.
 */
export function expectedEnd(variant: InputVariant, events: readonly ModelEvent[]): Expected {
  const progress: RalphProgressEvent[] = [];
  const rounds: Expected['rounds'] = [];
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
    return { state: 'rejected', output: { ok: false, failure }, progress, rounds, abandoned: false, context };
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

  const beginRound = () => {
    round += 1;
    childId = null;
    review = null;
    rounds.push({ round, handoff });
    progress.push({ type: 'round-started', runId, round, maxRounds: cap });
  };
  const context = () => ({ objective, maxRounds: cap, round, agentsStarted, childId, handoff, review });
  const end = (state: EndState | null, output: RalphOutput | null, abandoned = false): Expected => ({
    state,
    output,
    progress,
    rounds,
    abandoned,
    context: context(),
  });
  const failed = (failure: Omit<RalphFailure, 'round' | 'lastHandoff'>) =>
    end('failed', { ok: false, failure: { ...failure, round, lastHandoff: handoff } });
  const settled = (state: EndState, status: RalphResultStatus, report: RalphReport) =>
    end(state, { ok: true, envelope: { runId, agentsStarted, result: { status, rounds: round, report } } });
  const cancelled = (abandoned: boolean) =>
    end(
      'cancelled',
      { ok: false, failure: { code: 'cancelled', message: CANCELLED, round, lastHandoff: handoff } },
      abandoned,
    );

  beginRound();
  for (const event of events) {
    switch (event.type) {
      case EVENT.childStarted: {
        agentsStarted += 1;
        childId = (event.output as { childId: string }).childId;
        progress.push({ type: 'child-started', runId, round, maxRounds: cap, childId });
        break;
      }
      case EVENT.startFailed:
        return failed({
          code: 'workflow-failed',
          message: workflowFailed(
            `subagent provider "${PROVIDER_NAME}" failed to start round ${round}: ${event.error}`,
          ),
          detail: String(event.error),
        });
      case EVENT.childFailed:
        return failed({
          code: 'child-failed',
          message: childFailed(round, handoff),
          detail: String(event.error),
        });
      case EVENT.reported: {
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
        progress.push({ type: 'report-accepted', runId, round, maxRounds: cap, report });
        if (verdict.status === 'complete') return settled('complete', 'complete', report);
        if (verdict.status === 'blocked') return settled('blocked', 'blocked', report);
        if (round >= cap) return settled('budgetLimited', 'budget-limited', report);
        beginRound();
        break;
      }
      case EVENT.cancel:
        break;
      case EVENT.childStopped:
      case EVENT.stopFailed:
        return cancelled(false);
      case EVENT.cancelDeadline:
        return cancelled(true);
      default:
        throw new Error(`the oracle does not know the event ${event.type}`);
    }
  }
  return end(null, null);
}
