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
import type {
  RunEnding,
  RunModel,
  RunModelEvaluation,
  RunModelQuestion,
  RunModelRound,
} from './run-model.js';

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

/** The event that brings a round's report (and what its agent used), and the one that brings its failure. */
const REPORT_DONE = 'xstate.done.actor.runRound';
const REPORT_FAILED = 'xstate.error.actor.runRound';
/** The events of an evaluation: its child started, its output (with what it changed and used), or its failure. */
const EVALUATOR_STARTED = 'xstate.done.actor.startEvaluator';
const VERDICT_DONE = 'xstate.done.actor.awaitVerdict';
const VERDICT_FAILED = 'xstate.error.actor.awaitVerdict';
/** The state an evaluation runs in, and the one the round timeout or the time limit stops it through. */
const EVALUATING = 'running.evaluating';
/** The state a blocked round's question waits for a person's answer in (`--ask`), and the events that end the wait. */
const AWAITING_ANSWER = 'running.awaitingAnswer';
const ANSWER_DONE = 'xstate.done.actor.awaitAnswer';
const ANSWER_FAILED = 'xstate.error.actor.awaitAnswer';
const UNANSWERED: readonly string[] = ['timed-out', 'given-up', 'time-limit', 'unavailable'];
const STOPPING_EVALUATOR = 'stoppingEvaluator';

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

const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/**
 * Settles an evaluation whose output came, from the snapshot after it: the machine reviewed the verdict and kept what
 * the evaluator changed in `context.evaluation`. A change, or a verdict that was not given, failed the workflow.
 */
function reviewEvaluation(evaluation: RunModelEvaluation, context: Context): void {
  const state = asContext(context.evaluation);
  const review = asContext(state.review);
  if (state.review === null || state.review === undefined) return;
  evaluation.changedFiles = stringsOf(state.changedFiles);
  const verdict = asContext(review.verdict);
  if (review.state === 'given' && evaluation.changedFiles.length === 0) {
    evaluation.verdict = {
      verdict: verdict.verdict === 'accept' ? 'accept' : 'reject',
      findings: stringsOf(verdict.findings),
      evidence: stringsOf(verdict.evidence),
    };
    evaluation.outcome = evaluation.verdict.verdict;
  } else {
    evaluation.outcome = 'failed';
  }
}

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

  /** How an evaluation the run ended in ended with it: stopped by a guard rail, cancelled, or failed. */
  const endEvaluation = (evaluation: RunModelEvaluation, ending: RunEnding) => {
    evaluation.endedAt ??= ending.at;
    const stopped = model.path.some(
      ({ state, at }) => state === STOPPING_EVALUATOR && at >= evaluation.startedAt,
    );
    evaluation.outcome = stopped
      ? 'stopped'
      : isInState(ending.finalState, 'cancelling') || ending.finalState === 'cancelled'
        ? 'cancelled'
        : 'failed';
  };

  const settle = (ending: RunEnding) => {
    model.ending = ending;
    const evaluation = model.rounds.at(-1)?.evaluation;
    if (evaluation?.outcome === 'running') endEvaluation(evaluation, ending);
    const question = model.rounds.at(-1)?.question;
    if (question?.outcome === 'waiting') endQuestion(question, ending);
    const running = model.rounds.at(-1);
    if (running === undefined || running.endedAt !== null) return;
    // A forced exit leaves the run in `cancelling` (`cancelling.child` since the chart nested it; the flat machine's
    // recordings say `cancelling`): its round was cancelled, though the machine never said so.
    const outcome = isInState(ending.finalState, 'cancelling')
      ? 'cancelled'
      : (FINAL_OUTCOMES[ending.finalState] ?? 'failed');
    end(running, outcome, ending.at, ending.result.ok ? ending.result.envelope.result.report : null);
  };

  /**
   * How a question the run stopped waiting on without an answer ended with it: as the envelope says (its timer, the
   * time limit, a give-up, a source that failed), or cancelled.
   */
  const endQuestion = (question: RunModelQuestion, ending: RunEnding) => {
    question.endedAt ??= ending.at;
    const said = ending.result.ok ? asContext(ending.result.envelope.result.question) : {};
    question.outcome =
      typeof said.reason === 'string' && UNANSWERED.includes(said.reason)
        ? (said.reason as RunModelQuestion['outcome'])
        : 'cancelled';
    if (typeof said.detail === 'string') question.detail = said.detail;
  };

  /** A blocked round's question starts waiting: the round ended blocked, its report (the blocker) is the handoff. */
  const ask = (round: RunModelRound, context: Context, at: number) => {
    const report = reportOf(context);
    end(round, 'blocked', at, report);
    const wait = asContext(asContext(context.call).guardRails).waitForAnswersMs;
    round.question = {
      question: report?.blocker ?? '',
      askedAt: at,
      waitMs: typeof wait === 'number' ? wait : 0,
      endedAt: null,
      outcome: 'waiting',
      answer: null,
      by: null,
    };
  };

  /** The wait's end the answer event brings: a person's answer, a give-up, the source's own timeout. */
  const onAnswerEvent = (event: { type: string; output?: unknown }, at: number) => {
    const question = model.rounds.at(-1)?.question;
    if (question === undefined || question.outcome !== 'waiting') return;
    question.endedAt = at;
    if (event.type === ANSWER_FAILED) return;
    const output = asContext(event.output);
    if (typeof output.by === 'string') question.by = output.by;
    if (output.kind === 'answer' && typeof output.text === 'string') {
      question.outcome = 'answered';
      question.answer = output.text;
    } else question.outcome = output.kind === 'give-up' ? 'given-up' : 'timed-out';
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
    const checked = running?.evaluation;
    if (checked?.outcome === 'running' && checked.endedAt !== null) reviewEvaluation(checked, context);
    if (running !== undefined && running.endedAt === null && round > running.round)
      end(running, checked?.outcome === 'reject' ? 'rejected' : 'continue', t, reportOf(context));
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
    if (current !== undefined && current.evaluation === undefined && isInState(state, EVALUATING)) {
      const evaluator = asContext(asContext(context.call).evaluator).name;
      current.evaluation = {
        evaluator: typeof evaluator === 'string' ? evaluator : 'evaluator',
        childId: null,
        startedAt: t,
        endedAt: null,
        verdict: null,
        changedFiles: [],
        usage: null,
        outcome: 'running',
      };
    }
    if (current !== undefined && current.question === undefined && state === AWAITING_ANSWER)
      ask(current, context, t);
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

  /** An evaluation's child started, its output came (what it changed and used with it), or it failed. */
  const onEvaluationEvent = (event: { type: string; output?: unknown; error?: unknown }, at: number) => {
    const evaluation = model.rounds.at(-1)?.evaluation;
    if (evaluation === undefined || evaluation.endedAt !== null) return;
    if (event.type === EVALUATOR_STARTED) {
      const { childId } = asContext(event.output);
      if (typeof childId === 'string') evaluation.childId = childId;
    } else if (event.type === VERDICT_DONE) {
      const output = asContext(event.output);
      evaluation.endedAt = at;
      evaluation.usage = usageOf(output.usage);
      evaluation.changedFiles = stringsOf(output.changedFiles);
    } else if (event.type === VERDICT_FAILED) {
      evaluation.endedAt = at;
      evaluation.usage = usageOfFailure(event.error);
      evaluation.outcome = 'failed';
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
    } else if (
      line.type === '@xstate.event' &&
      (line.event.type === ANSWER_DONE || line.event.type === ANSWER_FAILED)
    ) {
      onAnswerEvent(line.event as { type: string; output?: unknown }, line.t);
    } else if (line.type === '@xstate.event') {
      onEvaluationEvent(line.event as { type: string; output?: unknown; error?: unknown }, line.t);
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
  // A migrated recording is shown as the file has it: the format and machine that wrote it.
  const from = recording.migratedFrom;
  if (from !== undefined)
    Object.assign(builder.model.recording, {
      formatVersion: from.formatVersion,
      machineHash: from.machineHash,
    });
  return builder.model;
}
