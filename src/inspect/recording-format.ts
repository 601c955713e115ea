/**
 * The run recording format (JSON Lines, format version 2): one JSON object per line, written as the run goes.
 * A format version is one machine: a change to the machine or to what a line holds is a new version, and the
 * migration chain (migrations/registry.ts) takes every older format to this one; version 1 was written by ten
 * machines in turn, told apart by `machineHash`.
 *
 * Line 1 is the header: `{"type":"@ralph.recording","formatVersion":2,"packageVersion","machineHash","startedAt",
 * "runId","maxResultChars","t":0}`, and an optional `host` object of the host's own (`ralph run` keeps
 * its options there for `ralph resume`). `machineHash` is `sha256:` and the hex digest of the machine's configuration as
 * canonical JSON (functions marked, not serialized): a replay refuses a recording whose hash is not its own machine's.
 *
 * Every later line is an XState inspection event of the run's actor system in the shape `@statelyai/inspect` sends
 * (`type`, `sessionId`, `rootId`, `id`, `createdAt`, `_version`, and per type `name`/`definition`/`parentId`/
 * `snapshot`, `event`/`sourceId`, or `event`/`snapshot`), plus `t`, the milliseconds since the run started:
 * - `@xstate.actor`: an actor was created: the run's machine (the root: no `parentId`, its configuration as JSON in
 *   `definition`) or one of the promise actors a round invokes;
 * - `@xstate.event`: an event was delivered to an actor; the root's events are recorded in full (the call's input in
 *   `xstate.init`, the child's id, raw report or error in the `xstate.done.actor.*`/`xstate.error.actor.*` events);
 * - `@xstate.microstep`: one step of the root's macrostep, with the state `value` it led to and its `transitions`
 *   (`source`, `targets`, `eventType`), so the states a run passes through without resting (`validating`,
 *   `reviewingReport`) are on record;
 * - `@xstate.snapshot`: an actor's snapshot after an event; the root's is the whole snapshot (value, context, status,
 *   output), its `event` only the event's type (the event itself is on the root's `@xstate.event` line before it).
 * Lines of the promise actors carry only their event's type and their snapshot's status: what they were given and
 * what they returned is on the root's lines, so each child's report is recorded once. Values JSON cannot hold are
 * written as tagged objects: an Error as `{"$type":"Error","name","message"}` (no stack), a provider's unreadable
 * report as `{"$type":"UnreadableReport","kind","problem"}`, a bigint as `{"$type":"BigInt","value"}`, and an
 * object that has a `$type` key of its own as `{"$type":"Object","entries":[[key, value], ...]}`.
 *
 * A host that ends its process before the run settled (`ralph run`'s forced exit) appends `{"type":"@ralph.forced-exit",
 * "t"}` as the last line.
 */

/** The format version this package writes; it reads every version up to it (older ones migrated). */
export const RECORDING_FORMAT_VERSION = 3;

/** The `type` of a recording's header line. */
export const RECORDING_HEADER_TYPE = '@ralph.recording';

/** The `type` of the line a host appends when it ends its process before the run settled. */
export const FORCED_EXIT_TYPE = '@ralph.forced-exit';

/** The `@statelyai/inspect` version whose event shape the inspection lines follow (their `_version`). */
export const STATELY_INSPECT_VERSION = '0.7.0';

/** The first line of a recording. */
export interface RecordingHeader {
  type: typeof RECORDING_HEADER_TYPE;
  formatVersion: number;
  /** The ralph-machine version that recorded the run ('unknown' when bundled without its package.json). */
  packageVersion: string;
  /** `sha256:<hex>` of the machine's configuration. */
  machineHash: string;
  /** When the run started, as an ISO 8601 time. */
  startedAt: string;
  runId: string;
  /** The bound of the native result text, so a replay prints the text the run printed. */
  maxResultChars: number;
  /** What the host kept here (optional): `ralph run` keeps its options, which `ralph resume` starts agents with. */
  host?: Record<string, unknown>;
  t: number;
}

/** What every inspection line carries, in the shape of `@statelyai/inspect`'s base event. */
interface InspectionLineBase {
  /** The actor's session id (the root's is the run's `rootId`). */
  sessionId: string;
  rootId: string | undefined;
  /** Unique in the recording: the line's number. */
  id: string;
  /** Wall-clock time, milliseconds since the epoch, as a string (as `@statelyai/inspect` writes it). */
  createdAt: string;
  _version: string;
  /** Milliseconds since the run started. */
  t: number;
}

/** An event as a line carries it: its type, and for the root's events everything else it held. */
export interface RecordedEventObject {
  type: string;
  [key: string]: unknown;
}

/** `@xstate.actor`: an actor was created. */
export interface RecordedActorLine extends InspectionLineBase {
  type: '@xstate.actor';
  /** The machine's id for the root, the invoke's id for a child. */
  name: string;
  /** The machine's configuration as JSON for the root; `{"id": name}` for a child. */
  definition: string | undefined;
  parentId: string | undefined;
  snapshot: { status: string };
}

/** `@xstate.event`: an event delivered to an actor. */
export interface RecordedEventLine extends InspectionLineBase {
  type: '@xstate.event';
  event: RecordedEventObject;
  sourceId: string | undefined;
}

/** One transition of a microstep. */
export interface RecordedTransition {
  /** The source state's path (e.g. `awaitingReport`). */
  source: string;
  targets: string[];
  /** The event type it took; '' for an eventless transition. */
  eventType: string;
}

/** `@xstate.microstep`: one step of the root's macrostep. */
export interface RecordedMicrostepLine extends InspectionLineBase {
  type: '@xstate.microstep';
  event: { type: string };
  /** The state value the step led to. */
  value: unknown;
  transitions: RecordedTransition[];
}

/** `@xstate.snapshot`: an actor's snapshot after an event. */
export interface RecordedSnapshotLine extends InspectionLineBase {
  type: '@xstate.snapshot';
  event: { type: string };
  /** The whole snapshot for the root (value, context, status, output, ...); `{status}` for a child. */
  snapshot: { status: string; value?: unknown; context?: unknown; output?: unknown; [key: string]: unknown };
}

/** The line a host appends when it ended its process before the run settled. */
export interface RecordedForcedExitLine {
  type: typeof FORCED_EXIT_TYPE;
  t: number;
}

/** Any line after the header. */
export type RecordedLine =
  | RecordedActorLine
  | RecordedEventLine
  | RecordedMicrostepLine
  | RecordedSnapshotLine
  | RecordedForcedExitLine;

/** Any line of a recording. */
export type RecordingLine = RecordingHeader | RecordedLine;

/** Where a recording is written: one call per line, each a whole line with its newline. */
export interface RecordingSink {
  write(line: string): unknown;
}

/** The key of a state value: the state's path, dot-separated (`round`; `a.b` for a nested state). */
export function stateKey(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const [entry] = Object.entries(value);
    if (entry !== undefined) {
      const inner = stateKey(entry[1]);
      return inner === '' ? entry[0] : `${entry[0]}.${inner}`;
    }
  }
  return '';
}

/**
 * Whether the state at dot path `path` is `state` or one of its substates (`running.round.awaitingReport` is in
 * `running.round`); every state is in the root, whose path is empty.
 */
export function isInState(path: string, state: string): boolean {
  return state === '' || path === state || path.startsWith(`${state}.`);
}
