import type { AnyStateMachine, InspectionEvent } from 'xstate';
import { errorText } from '../contract/error-text.js';
import { packageVersion } from '../package-root.js';
import { machineHash } from './machine-hash.js';
import {
  RECORDING_FORMAT_VERSION,
  RECORDING_HEADER_TYPE,
  type RecordedLine,
  type RecordingHeader,
  type RecordingSink,
  STATELY_INSPECT_VERSION,
} from './recording-format.js';
import { encodeRecordingJson } from './recording-json.js';

/** The code of the warning a run emits when its recording could not be written and stopped. */
export const RECORDING_FAILED = 'RALPH_RECORDING_FAILED';

/** What a recording's header says about the run. */
export interface RunRecorderOptions {
  runId: string;
  /** The machine the run interprets (its configuration is hashed and put on the root's actor line). */
  machine: AnyStateMachine;
  maxResultChars: number;
  /** What the host keeps in the header as `host` (JSON data), e.g. the options `ralph resume` starts agents with. */
  host?: Record<string, unknown>;
  /** A monotonic clock in milliseconds (default: performance.now). */
  now?: () => number;
}

/** Writes one run's recording as its inspection events arrive. */
export interface RunRecorder {
  /** The inspection observer to attach to the run's actor. */
  inspect(event: InspectionEvent): void;
  /** Stops recording; later events are not written. Does not close the sink. */
  close(): void;
}

type WithoutBase<L> = L extends unknown ? Omit<L, 'id' | 'createdAt' | '_version' | 't'> : never;

/**
 * Creates the recorder of one run and writes the header at once. Each inspection event becomes one line, written
 * to the sink before the event's processing goes on (nothing is held back), so what a process leaves when it exits
 * is complete up to its last event. A sink that throws stops the recording with one process warning; the run goes on.
 */
export function createRunRecorder(sink: RecordingSink, options: RunRecorderOptions): RunRecorder {
  const now = options.now ?? (() => performance.now());
  const started = now();
  let lineNumber = 0;
  let closed = false;

  const write = (line: object) => {
    if (closed) return;
    try {
      sink.write(`${encodeRecordingJson(line)}\n`);
    } catch (error) {
      closed = true;
      process.emitWarning(
        `Ralph run ${options.runId}: the recording stopped at line ${lineNumber}: ${errorText(error)}; the run goes on`,
        { type: 'RalphWarning', code: RECORDING_FAILED },
      );
    }
  };

  const writeLine = (line: WithoutBase<RecordedLine>) => {
    lineNumber += 1;
    write({
      ...line,
      id: String(lineNumber),
      createdAt: Date.now().toString(),
      _version: STATELY_INSPECT_VERSION,
      t: Math.round(now() - started),
    });
  };

  lineNumber = 1;
  write({
    type: RECORDING_HEADER_TYPE,
    formatVersion: RECORDING_FORMAT_VERSION,
    packageVersion: packageVersion(),
    machineHash: machineHash(options.machine),
    startedAt: new Date().toISOString(),
    runId: options.runId,
    ...(options.host === undefined ? {} : { host: options.host }),
    maxResultChars: options.maxResultChars,
    t: 0,
  } satisfies RecordingHeader);

  function inspect(event: InspectionEvent): void {
    if (closed) return;
    const { actorRef, rootId } = event;
    const sessionId = actorRef.sessionId;
    const isRoot = sessionId === rootId;
    const base = { sessionId, rootId };
    switch (event.type) {
      case '@xstate.actor': {
        const parentId = (actorRef as { _parent?: { sessionId: string } })._parent?.sessionId;
        const name = isRoot ? String(options.machine.id) : ((actorRef as { id?: string }).id ?? sessionId);
        writeLine({
          type: '@xstate.actor',
          ...base,
          name,
          definition: isRoot ? encodeRecordingJson(options.machine.config) : JSON.stringify({ id: name }),
          parentId,
          snapshot: { status: 'active' },
        });
        return;
      }
      case '@xstate.event':
        writeLine({
          type: '@xstate.event',
          ...base,
          // A child's events carry its input and its promise's value: what the root's own lines already hold.
          event: isRoot ? event.event : { type: event.event.type },
          sourceId: event.sourceRef?.sessionId,
        });
        return;
      case '@xstate.microstep':
        if (!isRoot) return;
        writeLine({
          type: '@xstate.microstep',
          ...base,
          event: { type: event.event.type },
          value: (event.snapshot as { value?: unknown }).value,
          transitions: event._transitions.map((transition) => ({
            source: transition.source.path.join('.'),
            targets: (transition.target ?? []).map((target) => target.path.join('.')),
            eventType: transition.eventType,
          })),
        });
        return;
      case '@xstate.snapshot':
        writeLine({
          type: '@xstate.snapshot',
          ...base,
          event: { type: event.event.type },
          snapshot: isRoot
            ? (event.snapshot as unknown as RecordedSnapshotOf)
            : { status: event.snapshot.status },
        });
        return;
      default:
        // Actions are not recorded: a replay derives them from the transitions.
        return;
    }
  }

  return {
    inspect,
    close() {
      closed = true;
    },
  };
}

type RecordedSnapshotOf = Extract<RecordedLine, { type: '@xstate.snapshot' }>['snapshot'];
