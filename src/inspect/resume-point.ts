import { answeredHandoff } from '../contract/answers.js';
import type { RalphReport } from '../contract/types.js';
import { usageOf } from '../contract/usage.js';
import type { RalphMachineInput, RalphResumePoint } from '../machines/ralph.machine.js';
import {
  type RecordedEventLine,
  type RecordedSnapshotLine,
  type RecordingHeader,
  stateKey,
} from './recording-format.js';
import { RecordingError, readRecording } from './recording-reader.js';

/** What a recording of an unsettled run says it takes to continue it. */
export interface RecordedResume {
  runId: string;
  /** The call's arguments as the run got them: a resumed run is the same call. */
  args: unknown;
  /** Where the run picks up. */
  point: RalphResumePoint;
  /**
   * The state the run was last in, as a dot path (`running.round.awaitingReport`, `cancelling.child`; a recording of
   * the flat machine before it nested says `round`, `awaitingReport` or `cancelling`), or `none` before its first rest.
   */
  lastState: string;
  /** Whether the host ended its process before the run settled (a forced exit). */
  forcedExit: boolean;
  /** The header's host object (`ralph run` keeps its options there), if any. */
  host: RecordingHeader['host'];
}

/** A recording of a run that settled: there is nothing to resume. */
export class RunSettledError extends Error {
  override readonly name = 'RunSettledError';
  constructor(
    readonly runId: string,
    readonly state: string,
  ) {
    super(`Ralph run ${runId} already settled (${state}): there is nothing to resume`);
  }
}

/**
 * The states a run rests in while a round is going on; the round they name is the one to run again. The flat
 * machine's names (before the chart nested its states) are kept, so that its recordings resume as they did.
 */
const ROUND_STATES = new Set([
  'running.round.starting',
  'running.round.awaitingReport',
  'cancelling.child',
  'round',
  'awaitingReport',
  'cancelling',
]);

/**
 * The states a run rests in while its evaluator checks a round's reported completion (or is being stopped on a
 * cancel): the round's report is in, so the run picks up by evaluating that completion again with a fresh evaluator.
 */
const EVALUATION_STATES = new Set([
  'running.evaluating.starting',
  'running.evaluating.awaitingVerdict',
  'cancelling.evaluator',
]);

/** The state a run rests in while it waits for a person's answer to a blocked round (`--ask`). */
const AWAITING_ANSWER = 'running.awaitingAnswer';

/** The event that brings a person's answer (or the source's give-up or timeout) to the run's machine. */
const ANSWER_DONE = 'xstate.done.actor.awaitAnswer';

interface RootContext {
  round?: unknown;
  handoff?: unknown;
  agentsStarted?: unknown;
  usage?: unknown;
  call?: { resumeFrom?: { uncountedRounds?: unknown } | null };
}

/** The rounds a resume before this one could not count (the recorded run's own resume point), if any. */
function earlierUncounted(context: RootContext): number[] {
  const rounds = context.call?.resumeFrom?.uncountedRounds;
  return Array.isArray(rounds) ? rounds.filter((n): n is number => Number.isSafeInteger(n) && n >= 1) : [];
}

/** The round the last snapshot was in; refused when it has none. */
function roundOf(context: RootContext, line: number): number {
  const round = context.round;
  if (typeof round !== 'number' || !Number.isSafeInteger(round) || round < 1)
    throw new RecordingError(line, 'the last snapshot has no round');
  return round;
}

/** The text of a person's answer an `awaitAnswer` output holds, or undefined when it holds none. */
function answerTextOf(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { kind, text } = output as { kind?: unknown; text?: unknown };
  return kind === 'answer' && typeof text === 'string' ? text : undefined;
}

/**
 * Where a run that stopped while it waited for an answer picks up: it waits again for the blocked round's answer
 * (the handoff is that round's blocked report). When the answer came and the host died before the snapshot it led
 * to, the answer is not lost: the run picks up with the next round, the answered handoff as the machine makes it.
 */
function questionPointOf(
  context: RootContext,
  answer: unknown,
  maxHandoffChars: number,
  line: number,
): RalphResumePoint {
  const round = roundOf(context, line);
  const handoff = (context.handoff ?? null) as RalphReport | null;
  const counts = {
    agentsStarted: typeof context.agentsStarted === 'number' ? context.agentsStarted : round,
    // Every round so far reported, so what their agents said is all in the total.
    usage: usageOf(context.usage),
    ...(earlierUncounted(context).length === 0 ? {} : { uncountedRounds: earlierUncounted(context) }),
  };
  const text = answerTextOf(answer);
  if (text !== undefined && handoff !== null)
    return { round, handoff: answeredHandoff(handoff, text, maxHandoffChars), ...counts };
  return { round, handoff, ...counts, awaitingAnswer: true };
}

/**
 * A host killed mid-write can leave a last line cut short (no newline after it): that line is dropped, since the
 * snapshot before it is all the run had reached for certain. Anything else that does not read fails as usual.
 */
function wholeLines(text: string): string[] {
  const lines = text.split('\n');
  const last = lines.pop();
  if (last !== undefined && last !== '' && lines.length === 0) lines.push(last);
  return lines;
}

/**
 * Reads where an unsettled run stopped, from its recording: its run id and call (the root's `xstate.init` input),
 * and from its last snapshot the rounds it finished, its last accepted report, the children it started and what its
 * agents said they used (the rounds whose spend is unknown named beside it). The round that was going on (a snapshot in the round or cancelling its child) is run again from its start; a run that stopped while its evaluator
 * checked a reported completion (`evaluating: true`) evaluates that completion again, with a fresh evaluator; one
 * that stopped while it waited for a person's answer (`awaitingAnswer: true`) waits again, unless the answer is on
 * record, and then goes on with the next round.
 * Throws a RunSettledError for a settled run and a RecordingError for a recording that does not read.
 */
export function resumePointOf(text: string): RecordedResume {
  const recording = readRecording(wholeLines(text));
  const { header, rootSessionId } = recording;
  let input: RalphMachineInput | undefined;
  let last: RecordedSnapshotLine | undefined;
  let forcedExit = false;
  // The answer event after the last snapshot: the host died after the answer came and before the snapshot it led to.
  let answerAfterLast: unknown;
  for (const { line } of recording.lines) {
    if (line.type === '@ralph.forced-exit') forcedExit = true;
    else if (line.sessionId !== rootSessionId) continue;
    else if (line.type === '@xstate.event' && (line as RecordedEventLine).event.type === 'xstate.init')
      input = (line as RecordedEventLine).event.input as RalphMachineInput;
    else if (line.type === '@xstate.event' && (line as RecordedEventLine).event.type === ANSWER_DONE)
      answerAfterLast = (line as RecordedEventLine).event.output;
    else if (line.type === '@xstate.snapshot') {
      last = line as RecordedSnapshotLine;
      answerAfterLast = undefined;
    }
  }
  if (input === undefined || typeof input !== 'object' || input === null || !('args' in input))
    throw new RecordingError(1, "the recording holds no start of the run's machine (its xstate.init event)");
  if (input.runId !== header.runId)
    throw new RecordingError(1, `the run's machine started as ${String(input.runId)}, not ${header.runId}`);
  const base = { runId: header.runId, args: input.args, forcedExit, host: header.host };
  if (last === undefined)
    return { ...base, point: { round: 0, handoff: null, agentsStarted: 0 }, lastState: 'none' };

  const snapshot = last.snapshot as { status: string; value?: unknown; context?: RootContext };
  const state = stateKey(snapshot.value);
  if (snapshot.status !== 'active') throw new RunSettledError(header.runId, state);
  if (state === AWAITING_ANSWER)
    return {
      ...base,
      point: questionPointOf(snapshot.context ?? {}, answerAfterLast, input.maxHandoffChars, Number(last.id)),
      lastState: state,
    };
  const evaluating = EVALUATION_STATES.has(state);
  if (!evaluating && !ROUND_STATES.has(state))
    throw new RecordingError(Number(last.id), `the run rested in ${state}, which is no round boundary`);
  const context = snapshot.context ?? {};
  const round = roundOf(context, Number(last.id));
  // The round going on is run again; while evaluating, the round is done (its report is the handoff the evaluator
  // was checking, its child counted) and the evaluation is done again.
  const finished = evaluating ? round : round - 1;
  return {
    ...base,
    point: {
      round: finished,
      handoff: (context.handoff ?? null) as RalphResumePoint['handoff'],
      agentsStarted: typeof context.agentsStarted === 'number' ? context.agentsStarted : finished,
      // The total the recording holds goes on; what the interrupted round (or its evaluator) spent is unknown.
      usage: usageOf(context.usage),
      uncountedRounds: [...new Set([...earlierUncounted(context), round])],
      ...(evaluating ? { evaluating: true } : {}),
    },
    lastState: state,
  };
}
