import { type ActorLogic, fromPromise, type SnapshotFrom } from 'xstate';
import { serializeSnapshot, TestModel, type TestPath } from 'xstate/graph';
import type { ChildRequest } from '../../src/contract/types.js';
import {
  type ChildStarted,
  type RalphEvent,
  type RalphMachineInput,
  type RoundRef,
  ralphMachine,
} from '../../src/machines/ralph.machine.js';
import { REPORT_VARIANTS } from './report-variants.js';

/** A snapshot of the run machine. */
export type RalphSnapshot = SnapshotFrom<typeof ralphMachine>;

/**
 * An event of the model. Besides the host's CANCEL, these are the events the machine's own actors and delays raise:
 * `xstate.done.actor.<id>` / `xstate.error.actor.<id>` with the payload of one child outcome, and the cancel deadline.
 * `variant` names the report a done event carries (two variants may share a payload shape, never a name).
 */
export interface ModelEvent {
  type: string;
  output?: unknown;
  error?: string;
  variant?: string;
}

/**
 * The event types of the model, as the machine names them: each invoke's id is the name of the actor it runs, and
 * the cancel deadline is named after its delay and its state (statechart.test.ts pins that the machine takes
 * exactly these).
 */
export const EVENT = {
  cancel: 'CANCEL',
  childStarted: 'xstate.done.actor.startChild',
  startFailed: 'xstate.error.actor.startChild',
  reported: 'xstate.done.actor.awaitReport',
  childFailed: 'xstate.error.actor.awaitReport',
  childStopped: 'xstate.done.actor.awaitChildStopped',
  stopFailed: 'xstate.error.actor.awaitChildStopped',
  cancelDeadline: 'xstate.after.cancelDeadline.ralph.cancelling',
} as const;

/** What a provider says when it cannot start a child. */
export const START_ERROR = 'spawn mock-agent ENOENT';
/** What a child that fails before its report dies of. */
export const CHILD_ERROR = 'child exited with code 1';
/** What a host's own stop actor fails with (the bridge's never fails). */
export const STOP_ERROR = 'the host could not confirm that the child stopped';

/** The child id a provider gives the child of `round`. */
export const childIdOf = (round: number): string => `mock-child-${round}`;

/** Every event the model offers in a snapshot; `snapshot.can` filters out those the state does not take. */
export function offeredEvents(snapshot: RalphSnapshot): ModelEvent[] {
  return [
    { type: EVENT.cancel },
    {
      type: EVENT.childStarted,
      output: { childId: childIdOf(snapshot.context.round) } satisfies ChildStarted,
    },
    { type: EVENT.startFailed, error: START_ERROR },
    ...REPORT_VARIANTS.map((v) => ({ type: EVENT.reported, output: v.output, variant: v.name })),
    { type: EVENT.childFailed, error: CHILD_ERROR },
    { type: EVENT.childStopped },
    { type: EVENT.stopFailed, error: STOP_ERROR },
    { type: EVENT.cancelDeadline },
  ];
}

const neverSettles = <TOutput, TInput>() => fromPromise<TOutput, TInput>(() => new Promise<never>(() => {}));

/**
 * The machine the model walks: the real config and implementations, with actors that never settle, so that the
 * model's events alone move it. (Graph traversal never starts the actors anyway; this makes sure of it.)
 */
export const modelMachine = ralphMachine.provide({
  actors: {
    startChild: neverSettles<ChildStarted, ChildRequest>(),
    awaitReport: neverSettles<unknown, RoundRef>(),
    awaitChildStopped: neverSettles<void, RoundRef>(),
  },
});

/** Whether the machine in `snapshot` takes `event`, guards included. */
export const takes = (snapshot: RalphSnapshot, event: ModelEvent): boolean =>
  // The machine's declared events are the host's only; the actor events are internal but take the same path.
  snapshot.can(event as unknown as RalphEvent);

/**
 * A state is the value and the whole context. A final state also remembers the event that led to it and where
 * from, so that transitions which end in equal snapshots (a stopped child, a failed stop, the deadline) each get
 * a path of their own.
 */
function serializeState(
  snapshot: RalphSnapshot,
  event: ModelEvent | undefined,
  previous?: RalphSnapshot,
): string {
  const via =
    snapshot.status === 'done' && event !== undefined
      ? ` via ${JSON.stringify(event)} from ${JSON.stringify(previous?.value)}`
      : '';
  return `${serializeSnapshot(snapshot)}${via}`;
}

/** The test model of one machine input. */
export function createRalphModel(input: RalphMachineInput) {
  return new TestModel<RalphSnapshot, ModelEvent, RalphMachineInput>(
    modelMachine as unknown as ActorLogic<RalphSnapshot, ModelEvent, RalphMachineInput>,
    {
      input,
      events: offeredEvents,
      filterEvents: takes,
      serializeState,
      // The model at cap 3 takes a few hundred steps to walk; a machine that never stops starting rounds fails here.
      limit: 2_000,
    },
  );
}

/** One path of the model: the snapshots the machine must go through, and the events that take it there. */
export type RalphPath = TestPath<RalphSnapshot, ModelEvent>;

/** The shortest path to every state of the model (paths that are prefixes of others are left out). */
export function pathsOf(input: RalphMachineInput): RalphPath[] {
  return createRalphModel(input).getShortestPaths();
}

/** A short, readable name of an event of a path. */
export function describeEvent(event: ModelEvent): string {
  switch (event.type) {
    case 'xstate.init':
      return 'call';
    case EVENT.cancel:
      return 'CANCEL';
    case EVENT.childStarted:
      return 'child started';
    case EVENT.startFailed:
      return 'provider fails to start';
    case EVENT.reported:
      return `report: ${event.variant}`;
    case EVENT.childFailed:
      return 'child fails';
    case EVENT.childStopped:
      return 'child stops';
    case EVENT.stopFailed:
      return 'stop fails';
    case EVENT.cancelDeadline:
      return 'cancel deadline passes';
    default:
      return event.type;
  }
}

/** A readable name of a path: its events, then the state it ends in. */
export function describePath(path: RalphPath): string {
  const events = path.steps.map((step) => describeEvent(step.event)).join(' → ');
  return `${events} ⇒ ${String(path.state.value)}`;
}
