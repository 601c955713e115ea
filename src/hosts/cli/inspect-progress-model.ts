// INTERIM (issue 9): the live inspector's model, built from the run's progress events and its result, until the
// builder from live inspection events (src/inspect/, helper H) is wired in its place. It knows the rounds, the
// children, the reports and the ending exactly; the path it infers is the one the machine takes for those events.
import type { RalphFailure } from '../../contract/errors.js';
import type { RalphEnvelope, RalphProgressEvent } from '../../contract/types.js';
import type { RunModel, RunModelRound } from '../../inspect/run-model.js';

/** How a run settled, as the inspector is told. */
export type SettledRun =
  | { ok: true; envelope: RalphEnvelope }
  | { ok: false; failure: RalphFailure; runId?: string };

/** A run model that follows one run's progress. */
export interface ProgressRunModel {
  /** The model as it stands. */
  current(): RunModel;
  /** Applies one progress event; returns the new model. */
  progress(event: RalphProgressEvent): RunModel;
  /** Applies the run's ending; returns the final model. */
  settle(settled: SettledRun): RunModel;
}

const FINAL_STATE_OF_STATUS = { complete: 'complete', blocked: 'blocked', 'budget-limited': 'budgetLimited' };
const FINAL_STATE_OF_CODE = {
  refused: 'rejected',
  cancelled: 'cancelled',
  'child-failed': 'failed',
  'workflow-failed': 'failed',
};

/** Starts a model of a run of `objective` (as the call sends it) beginning now; times are measured from this call. */
export function createProgressRunModel(
  objective: string | null,
  packageVersion: string,
  now: () => number = () => performance.now(),
): ProgressRunModel {
  const origin = now();
  const at = () => Math.round(now() - origin);
  const model: RunModel = {
    recording: { formatVersion: 0, packageVersion, machineHash: 'live (not recorded)' },
    startedAt: new Date().toISOString(),
    runId: '',
    objective,
    maxRounds: null,
    agentsStarted: 0,
    path: [{ state: 'validating', at: 0 }],
    rounds: [],
    ending: null,
  };
  const enter = (state: string, time: number) => model.path.push({ state, at: time });
  const running = (): RunModelRound | undefined => model.rounds.find((round) => round.outcome === 'running');
  // A copy, so a listener holding an earlier model never sees it change.
  const snapshot = (): RunModel => structuredClone(model);

  return {
    current: snapshot,
    progress(event) {
      const time = at();
      model.runId = event.runId;
      model.maxRounds = event.maxRounds;
      if (event.type === 'round-started') {
        model.rounds.push({
          round: event.round,
          childId: null,
          startedAt: time,
          endedAt: null,
          report: null,
          outcome: 'running',
        });
        enter('round', time);
      } else if (event.type === 'child-started') {
        const round = running();
        if (round !== undefined) round.childId = event.childId;
        model.agentsStarted += 1;
        enter('awaitingReport', time);
      } else {
        const round = running();
        if (round !== undefined) {
          round.report = event.report;
          round.endedAt = time;
          round.outcome = event.report.status;
        }
        enter('reviewingReport', time);
      }
      return snapshot();
    },
    settle(settled) {
      const time = at();
      const round = running();
      if (settled.ok) {
        const { envelope } = settled;
        model.runId = envelope.runId;
        model.agentsStarted = envelope.agentsStarted;
        const last = model.rounds.at(-1);
        if (envelope.result.status === 'budget-limited' && last !== undefined)
          last.outcome = 'budget-limited';
        const finalState = FINAL_STATE_OF_STATUS[envelope.result.status];
        enter(finalState, time);
        model.ending = { finalState, at: time, result: { ok: true, envelope } };
      } else {
        const { failure } = settled;
        if (settled.runId !== undefined) model.runId = settled.runId;
        if (round !== undefined) {
          round.endedAt = time;
          round.outcome = failure.code === 'cancelled' ? 'cancelled' : 'failed';
        }
        if (failure.code === 'cancelled' && round !== undefined) enter('cancelling', time);
        const finalState = FINAL_STATE_OF_CODE[failure.code];
        enter(finalState, time);
        model.ending = { finalState, at: time, result: { ok: false, failure } };
      }
      return snapshot();
    },
  };
}
