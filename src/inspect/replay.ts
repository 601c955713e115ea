import {
  type ExecutableActionsFrom,
  getInitialMicrosteps,
  getMicrosteps,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { errorText } from '../contract/error-text.js';
import { WORKFLOW_CANCELLED } from '../contract/messages.js';
import type { RalphProgressEvent } from '../contract/types.js';
import {
  type RalphEvent,
  type RalphMachine,
  type RalphMachineInput,
  type RalphOutput,
  ralphMachine,
} from '../machines/ralph.machine.js';
import { machineHash } from './machine-hash.js';
import { checkMigratedEnding } from './migrated-ending.js';
import {
  FORCED_EXIT_TYPE,
  isInState,
  type RecordedEventObject,
  type RecordedMicrostepLine,
  type RecordedSnapshotLine,
  type RecordingHeader,
  stateKey,
} from './recording-format.js';
import { decodeRecordingJson, encodeRecordingJson } from './recording-json.js';
import { RecordingError, readRecording } from './recording-reader.js';

type RalphSnapshot = SnapshotFrom<RalphMachine>;

/** One event of the run's machine, as the replay took it. */
export interface ReplayStep {
  /** The recording's line of the event. */
  line: number;
  /** Milliseconds since the run started. */
  t: number;
  event: RecordedEventObject;
  /** The state the machine rests in after it. */
  state: string;
  /** The progress the machine emitted on it (what a host's onProgress received). */
  emitted: RalphProgressEvent[];
}

/** A recording replayed through the machine. */
export interface ReplayResult {
  header: RecordingHeader;
  /** The machine's snapshot after the last event. */
  snapshot: RalphSnapshot;
  /**
   * How the run ended: the machine's output, or, when the host forced its exit before the run settled, the
   * cancellation it reported then.
   */
  outcome: RalphOutput;
  /** True when the host ended its process before the run settled (the recording's last line says so). */
  forcedExit: boolean;
  steps: ReplayStep[];
}

/** What the replay has computed for the machine's event it is on, until the snapshot line that closes it. */
interface PendingStep {
  line: number;
  t: number;
  event: RecordedEventObject;
  before: string;
  next: RalphSnapshot;
  /** The states the event's microsteps lead to, as the machine computes them. */
  states: string[];
  emitted: RalphProgressEvent[];
}

const normalized = (value: unknown): unknown => decodeRecordingJson(encodeRecordingJson(value) ?? 'null');

const shown = (value: unknown): string => {
  const text = encodeRecordingJson(value) ?? 'undefined';
  return text.length <= 120 ? text : `${text.slice(0, 119)}…`;
};

/** The first place two JSON values differ, as a path (`context.round`), or undefined when they are equal. */
function firstDifference(
  a: unknown,
  b: unknown,
  path: string,
): { path: string; a: unknown; b: unknown } | undefined {
  if (Object.is(a, b)) return undefined;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return { path, a, b };
  if (a instanceof Error || b instanceof Error) {
    return a instanceof Error && b instanceof Error && a.message === b.message ? undefined : { path, a, b };
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      path === '' ? key : `${path}.${key}`,
    );
    if (found !== undefined) return found;
  }
  return undefined;
}

/** What the machine emitted: XState's built-in emit actions, which the pure transition returns unexecuted. */
const emittedOf = (actions: ExecutableActionsFrom<RalphMachine>[]): RalphProgressEvent[] =>
  actions
    .filter((action) => (action.type as string) === 'xstate.emit')
    .map((action) => (action.params as unknown as { event: RalphProgressEvent }).event);

/** Starts the machine from the recorded `xstate.init` event, as the live actor did. */
function initialStep(line: number, t: number, event: RecordedEventObject): PendingStep {
  if (event.type !== 'xstate.init')
    throw new RecordingError(line, `the run's first event is ${event.type}; it must be xstate.init`);
  const input = event.input as RalphMachineInput;
  let microsteps: ReturnType<typeof getInitialMicrosteps<RalphMachine>>;
  let next: RalphSnapshot;
  let actions: ExecutableActionsFrom<RalphMachine>[];
  try {
    microsteps = getInitialMicrosteps(ralphMachine, input);
    [next, actions] = initialTransition(ralphMachine, input);
  } catch (error) {
    throw new RecordingError(line, `the machine cannot start from the recorded input: ${errorText(error)}`);
  }
  // The live actor enters its initial state without a microstep event; the ones after it are on record.
  const [entry, ...rest] = microsteps;
  return {
    line,
    t,
    event,
    before: entry === undefined ? '' : stateKey(entry[0].value),
    next,
    states: rest.map(([snapshot]) => stateKey(snapshot.value)),
    emitted: emittedOf(actions),
  };
}

/** Takes one recorded event through the machine, refusing one the machine could not have taken. */
function nextStep(snapshot: RalphSnapshot, line: number, t: number, event: RecordedEventObject): PendingStep {
  const state = stateKey(snapshot.value);
  if (snapshot.status !== 'active')
    throw new RecordingError(
      line,
      `the run had already ended in ${state}; no event (here ${event.type}) can follow`,
    );
  const machineEvent = event as unknown as RalphEvent;
  if (!snapshot.can(machineEvent))
    throw new RecordingError(
      line,
      `the event ${event.type} is impossible in state ${state}: the machine has no transition for it there`,
    );
  try {
    const microsteps = getMicrosteps(ralphMachine, snapshot, machineEvent);
    const [next, actions] = transition(ralphMachine, snapshot, machineEvent);
    return {
      line,
      t,
      event,
      before: state,
      next,
      states: microsteps.map(([step]) => stateKey(step.value)),
      emitted: emittedOf(actions),
    };
  } catch (error) {
    throw new RecordingError(line, `the machine failed on the event ${event.type}: ${errorText(error)}`);
  }
}

/** Refuses microstep lines that are not the steps the machine took on the event. */
function checkMicrosteps(
  pending: PendingStep,
  recorded: { number: number; line: RecordedMicrostepLine }[],
): void {
  let before = pending.before;
  pending.states.forEach((state, index) => {
    const step = recorded[index];
    if (step === undefined)
      throw new RecordingError(
        pending.line,
        `the machine passes through ${state} on this event, and no microstep line says so`,
      );
    const value = stateKey(step.line.value);
    const sources = step.line.transitions.map((transition) => transition.source);
    // A transition's source is the state that declares it: the state the run was in, or one of its ancestors.
    if (value !== state || sources.some((source) => !isInState(before, source)))
      throw new RecordingError(
        step.number,
        `the microstep goes from ${sources.join(', ') || 'nowhere'} to ${value}; the machine goes from ${before} to ${state}`,
      );
    before = state;
  });
  const extra = recorded[pending.states.length];
  if (extra !== undefined)
    throw new RecordingError(
      extra.number,
      `a microstep the machine does not take on the event of line ${pending.line}`,
    );
}

/** Refuses a snapshot line that is not the snapshot the machine reached. */
function checkSnapshot(pending: PendingStep, number: number, line: RecordedSnapshotLine): void {
  const { next } = pending;
  const replayed = normalized({
    value: next.value,
    status: next.status,
    context: next.context,
    output: next.output,
  });
  const { value, status, context, output } = line.snapshot;
  const recorded = normalized({ value, status, context, output });
  const difference = firstDifference(replayed, recorded, '');
  if (difference !== undefined)
    throw new RecordingError(
      number,
      `the recorded snapshot is not the machine's: after the ${pending.event.type} event of line ${pending.line}, ` +
        `${difference.path} is ${shown(difference.a)} in the machine but ${shown(difference.b)} in the recording`,
    );
}

/**
 * Replays a recording (its text or its lines) through the ralph machine with XState's pure `initialTransition` and
 * `transition`: no provider, no process, no timer. Every event of the run's machine must be one the machine can take
 * in the state it is in, and every recorded microstep and snapshot must be the one the machine reaches; a recording
 * of an older release's machine is migrated, its events taken through today's machine and only its ending compared.
 * Throws a RecordingError naming the line when the recording is malformed, was made by a machine no release had
 * (its header's hash), asks for an impossible transition, or ends before the run settled (unless its host forced the exit).
 */
export function replayRecording(input: string | readonly string[]): ReplayResult {
  const { header, lines, rootSessionId, migratedFrom } = readRecording(input);
  const expected = machineHash(ralphMachine);
  if (header.machineHash !== expected)
    throw new RecordingError(
      1,
      `the recording was made by another version of the ralph machine (ralph-machine ${header.packageVersion}, ` +
        `machine ${header.machineHash}; this one is ${expected}): replay it with the version that recorded it`,
    );
  // An older machine's microsteps and snapshots are its own: its events are taken through today's machine, and
  // only the ending is compared (migrated-ending.ts).
  const olderMachine = migratedFrom !== undefined && migratedFrom.machineHash !== expected;
  const lastLine = lines.at(-1)?.number ?? 1;
  if (rootSessionId === undefined)
    throw new RecordingError(lastLine, 'the recording holds no run: no actor was recorded');

  let snapshot: RalphSnapshot | undefined;
  let pending: PendingStep | undefined;
  let microsteps: { number: number; line: RecordedMicrostepLine }[] = [];
  let forcedExit = false;
  let lastRecorded: { number: number; line: RecordedSnapshotLine } | undefined;
  const steps: ReplayStep[] = [];

  for (const { number, line } of lines) {
    if (line.type === FORCED_EXIT_TYPE) {
      if (snapshot === undefined || pending !== undefined || snapshot.status !== 'active')
        throw new RecordingError(
          number,
          'a forced exit is recorded only while the run goes, between its events',
        );
      forcedExit = true;
      continue;
    }
    if (line.sessionId !== rootSessionId) continue;
    switch (line.type) {
      case '@xstate.event':
        if (pending !== undefined)
          throw new RecordingError(
            number,
            `a second event before the snapshot of the event of line ${pending.line}`,
          );
        pending =
          snapshot === undefined
            ? initialStep(number, line.t, line.event)
            : nextStep(snapshot, number, line.t, line.event);
        break;
      case '@xstate.microstep':
        microsteps.push({ number, line });
        break;
      case '@xstate.snapshot':
        if (pending === undefined)
          throw new RecordingError(number, "a snapshot of the run's machine with no event before it");
        if (!olderMachine) {
          checkMicrosteps(pending, microsteps);
          checkSnapshot(pending, number, line);
        }
        lastRecorded = { number, line };
        snapshot = pending.next;
        steps.push({
          line: pending.line,
          t: pending.t,
          event: pending.event,
          state: stateKey(snapshot.value),
          emitted: pending.emitted,
        });
        pending = undefined;
        microsteps = [];
        break;
      case '@xstate.actor':
        break;
    }
  }

  if (pending !== undefined)
    throw new RecordingError(
      pending.line,
      'the recording ends before the snapshot this event led to (was it cut off?)',
    );
  if (snapshot === undefined) throw new RecordingError(lastLine, 'the recording holds no event of the run');
  if (snapshot.status !== 'done' && !forcedExit)
    throw new RecordingError(
      lastLine,
      `the recording ends while the run was still going (in state ${stateKey(snapshot.value)}): the process that ` +
        'recorded it stopped before the run settled',
    );
  if (olderMachine && lastRecorded !== undefined)
    checkMigratedEnding(migratedFrom, lastRecorded.number, lastRecorded.line.snapshot, snapshot);
  const outcome: RalphOutput = forcedExit
    ? { ok: false, failure: { code: 'cancelled', message: WORKFLOW_CANCELLED } }
    : (snapshot.output as RalphOutput);
  return { header, snapshot, outcome, forcedExit, steps };
}
