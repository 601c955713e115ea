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
 * checked a reported completion (`evaluating: true`) evaluates that completion again, with a fresh evaluator.
 * Throws a RunSettledError for a settled run and a RecordingError for a recording that does not read.
 */
export function resumePointOf(text: string): RecordedResume {
  const recording = readRecording(wholeLines(text));
  const { header, rootSessionId } = recording;
  let input: RalphMachineInput | undefined;
  let last: RecordedSnapshotLine | undefined;
  let forcedExit = false;
  for (const { line } of recording.lines) {
    if (line.type === '@ralph.forced-exit') forcedExit = true;
    else if (line.sessionId !== rootSessionId) continue;
    else if (line.type === '@xstate.event' && (line as RecordedEventLine).event.type === 'xstate.init')
      input = (line as RecordedEventLine).event.input as RalphMachineInput;
    else if (line.type === '@xstate.snapshot') last = line as RecordedSnapshotLine;
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
  const evaluating = EVALUATION_STATES.has(state);
  if (!evaluating && !ROUND_STATES.has(state))
    throw new RecordingError(Number(last.id), `the run rested in ${state}, which is no round boundary`);
  const context = snapshot.context ?? {};
  const round = context.round;
  if (typeof round !== 'number' || !Number.isSafeInteger(round) || round < 1)
    throw new RecordingError(Number(last.id), 'the last snapshot has no round');
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
