import { errorText } from '../contract/error-text.js';
import type { RalphFailure } from '../contract/errors.js';
import { WORKFLOW_CANCELLED, workflowFailed } from '../contract/messages.js';
import type { RalphReport } from '../contract/types.js';
import { usageOf, usageOfFailure } from '../contract/usage.js';
import {
  FORCED_EXIT_TYPE,
  isInState,
  type RecordedLine,
  type RecordedSnapshotLine,
  type RecordingHeader,
  stateKey,
} from './recording-format.js';
import {
  parseRecordedLine,
  parseRecordingHeader,
  type Recording,
  RecordingError,
  readRecording,
} from './recording-reader.js';
import type { RunEnding, RunModel, RunModelRound } from './run-model.js';

/** Builds a RunModel line by line: from a whole recording, or live, as a run's lines arrive. */
export interface RunModelBuilder {
  /**
   * Adds the next line after the header (an object, or its JSON text, checked like a recording's line) and returns
   * the model. The model is one object updated in place by every `add`: clone it to keep how it stood.
   */
  add(line: RecordedLine | string): RunModel;
  /** The model as it stands. */
  readonly model: RunModel;
}

const FINAL_OUTCOMES: Record<string, RunModelRound['outcome']> = {
  complete: 'complete',
  blocked: 'blocked',
  budgetLimited: 'budget-limited',
  failed: 'failed',
  rejected: 'failed',
  cancelled: 'cancelled',
};

type Context = Record<string, unknown>;

/** The event that brings a round's report (and what its agent used). */
const REPORT_DONE = 'xstate.done.actor.awaitReport';
const REPORT_FAILED = 'xstate.error.actor.awaitReport';

const asContext = (value: unknown): Context =>
  typeof value === 'object' && value !== null ? (value as Context) : {};

/** The objective as the call had it: the accepted one, or what it sent (null when it sent none). */
function objectiveOf(context: Context): string | null {
  if (typeof context.objective === 'string' && context.objective !== '') return context.objective;
  // Recordings before the call was nested in `call` keep it at the top.
  const sent = asContext(context.call).objectiveInput ?? context.objectiveInput;
  if (sent === undefined || sent === null) return null;
  return typeof sent === 'string' ? sent : JSON.stringify(sent);
}

const reportOf = (context: Context): RalphReport | null => (context.handoff as RalphReport | null) ?? null;

/** How a machine that stopped with an error ended, as the engine reports it. */
const machineFault = (error: unknown): RalphFailure => ({
  code: 'workflow-failed',
  message: workflowFailed(errorText(error)),
});

/**
 * Creates a run model builder for the recording whose header this is. Pure: no I/O and no clock (every time comes
 * from the lines), so it runs where the lines are, a browser included. The model follows the run's machine (the
 * first actor): its microsteps give the path, its snapshots the facts, the rounds and the ending.
 */
export function createRunModelBuilder(header: RecordingHeader | string): RunModelBuilder {
  const head = typeof header === 'string' ? parseRecordingHeader(header) : header;
  const model: RunModel = {
    recording: {
      formatVersion: head.formatVersion,
      packageVersion: head.packageVersion,
      machineHash: head.machineHash,
    },
    startedAt: head.startedAt,
    runId: head.runId,
    objective: null,
    maxRounds: null,
    agentsStarted: 0,
    path: [],
    rounds: [],
    usage: null,
    ending: null,
  };
  let root: string | undefined;
  let count = 1;
  /** When the machine's current step began: its first line since the last snapshot (what a round starts at). */
  let stepStart: number | undefined;

  const enter = (state: string, at: number) => {
    model.path.push({ state, at });
  };

  const end = (
    round: RunModelRound,
    outcome: RunModelRound['outcome'],
    at: number,
    report: RalphReport | null,
  ) => {
    round.outcome = outcome;
    round.endedAt = at;
    round.report = report;
  };

  const settle = (ending: RunEnding) => {
    model.ending = ending;
    const running = model.rounds.at(-1);
    if (running === undefined || running.endedAt !== null) return;
    // A forced exit leaves the run in `cancelling` (`cancelling.child` since the chart nested it; the flat machine's
    // recordings say `cancelling`): its round was cancelled, though the machine never said so.
    const outcome = isInState(ending.finalState, 'cancelling')
      ? 'cancelled'
      : (FINAL_OUTCOMES[ending.finalState] ?? 'failed');
    end(running, outcome, ending.at, ending.result.ok ? ending.result.envelope.result.report : null);
  };

  const onSnapshot = ({ snapshot, t: snapshotAt }: RecordedSnapshotLine) => {
    const t = stepStart ?? snapshotAt;
    stepStart = undefined;
    const state = stateKey(snapshot.value);
    if (state !== '' && model.path.at(-1)?.state !== state) enter(state, t);
    const context = asContext(snapshot.context);
    if (typeof context.runId === 'string') model.runId = context.runId;
    model.objective = objectiveOf(context);
    model.maxRounds =
      typeof context.maxRounds === 'number' && context.maxRounds > 0 ? context.maxRounds : null;
    if (typeof context.agentsStarted === 'number') model.agentsStarted = context.agentsStarted;
    const round = typeof context.round === 'number' ? context.round : 0;

    const running = model.rounds.at(-1);
    if (running !== undefined && running.endedAt === null && round > running.round)
      end(running, 'continue', t, reportOf(context));
    while (model.rounds.length < round) {
      model.rounds.push({
        round: model.rounds.length + 1,
        childId: null,
        startedAt: t,
        endedAt: null,
        report: null,
        usage: null,
        outcome: 'running',
      });
    }
    const current = model.rounds[round - 1];
    if (current !== undefined && current.childId === null && typeof context.childId === 'string')
      current.childId = context.childId;
    // Recordings made before usage was recorded have no total: their run stays at null.
    model.usage = usageOf(context.usage);

    if (snapshot.status === 'done') {
      // The output's shape was checked when the line was read (recorded-values.ts); a done machine must have one.
      if (snapshot.output === undefined)
        throw new RecordingError(count, "the run's machine is done with no output");
      settle({ finalState: state, at: t, result: snapshot.output as RunEnding['result'] });
    } else if (snapshot.status === 'error') {
      settle({ finalState: state, at: t, result: { ok: false, failure: machineFault(snapshot.error) } });
    }
  };

  function add(input: RecordedLine | string): RunModel {
    count += 1;
    const line = typeof input === 'string' ? parseRecordedLine(input, count) : input;
    if (line.type === FORCED_EXIT_TYPE) {
      if (model.ending === null)
        settle({
          finalState: model.path.at(-1)?.state ?? '',
          at: line.t,
          result: { ok: false, failure: { code: 'cancelled', message: WORKFLOW_CANCELLED } },
        });
      return model;
    }
    if (line.type === '@xstate.actor' && root === undefined && line.parentId === undefined)
      root = line.sessionId;
    if (line.sessionId !== root || model.ending !== null) return model;
    if (line.type !== '@xstate.actor') stepStart ??= line.t;
    if (line.type === '@xstate.microstep') {
      if (model.path.length === 0) {
        for (const source of new Set(line.transitions.map((transition) => transition.source)))
          enter(source, line.t);
      }
      enter(stateKey(line.value), line.t);
    } else if (line.type === '@xstate.snapshot') {
      onSnapshot(line);
    } else if (line.type === '@xstate.event' && line.event.type === REPORT_DONE) {
      // The round's usage is on the event that brought its report (the next round's start resets it in the
      // context before any snapshot shows it); in a recording made before usage, the output is the bare report.
      const round = model.rounds.at(-1);
      const output = asContext(line.event.output);
      if (round !== undefined) round.usage = usageOf(output.usage);
    } else if (line.type === '@xstate.event' && line.event.type === REPORT_FAILED) {
      // A failed round's usage is on its error: what its agent said it spent counts though no report came.
      const round = model.rounds.at(-1);
      if (round !== undefined) round.usage = usageOfFailure((line.event as { error?: unknown }).error);
    }
    return model;
  }

  return {
    add,
    get model() {
      return model;
    },
  };
}

/** The run model of a whole recording (its text, its lines, or the recording already read). */
export function buildRunModel(input: string | readonly string[] | Recording): RunModel {
  const recording =
    typeof input === 'string' || Array.isArray(input) ? readRecording(input) : (input as Recording);
  const builder = createRunModelBuilder(recording.header);
  for (const { line } of recording.lines) builder.add(line);
  return builder.model;
}
