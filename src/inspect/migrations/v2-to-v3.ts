// The step from the machine whose round invoked two actors (`startChild` in `starting`, `awaitReport` in
// `awaitingReport`) to the machine whose round invokes one (`runRound` on the `round` box, which tells the run
// CHILD_STARTED between the child's start and its report): issue 35, item 6. A pure function of the lines.

import type { MigratingLine, MigratingRecording } from './migration.js';

/** One line of a recording as plain data, and its number in the file. */
export type RoundActorLine = MigratingLine;

/** A recording on its way through a migration: its header and later lines, as plain data. */
export type RoundActorRecording = MigratingRecording;

/** What the step says it changes. */
export const ONE_ROUND_ACTOR_CHANGE =
  "one actor a round: startChild's done event is CHILD_STARTED, awaitReport's events are runRound's";

const START_DONE = 'xstate.done.actor.startChild';
const START_ERROR = 'xstate.error.actor.startChild';
const REPORT_DONE = 'xstate.done.actor.awaitReport';
const REPORT_ERROR = 'xstate.error.actor.awaitReport';
/** The old events of the round's actors and the new ones (CHILD_STARTED takes its `childId` off the old output). */
const RENAMED: Record<string, string> = {
  [START_DONE]: 'CHILD_STARTED',
  [START_ERROR]: 'xstate.error.actor.runRound',
  [REPORT_DONE]: 'xstate.done.actor.runRound',
  [REPORT_ERROR]: 'xstate.error.actor.runRound',
};
/** The events the `round` box now takes, where its `starting`/`awaitingReport` took them. */
const TAKEN_BY_ROUND = new Set([START_ERROR, REPORT_DONE, REPORT_ERROR]);
const ROUND = 'running.round';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each `awaitReport` actor's session, paired with the `startChild` actor of its round (the last one before it). */
function pairedSessions(lines: readonly RoundActorLine[]): Map<string, string> {
  const pairs = new Map<string, string>();
  let starter: string | undefined;
  for (const { line } of lines) {
    if (line.type !== '@xstate.actor' || typeof line.sessionId !== 'string') continue;
    if (line.name === 'startChild') starter = line.sessionId;
    else if (line.name === 'awaitReport' && starter !== undefined) {
      pairs.set(line.sessionId, starter);
      starter = undefined;
    }
  }
  return pairs;
}

/** An event of the run's machine in today's words. */
function renamedEvent(event: Record<string, unknown>): Record<string, unknown> {
  const type = RENAMED[String(event.type)];
  if (type === undefined) return event;
  if (event.type === START_DONE) {
    const output = isObject(event.output) ? event.output : {};
    return { type, childId: output.childId };
  }
  // XState's done and error events name the actor they come from.
  return { ...event, type, ...('actorId' in event ? { actorId: 'runRound' } : {}) };
}

/** A microstep of the run's machine in today's words: the round box takes the report and the failures. */
function renamedTransition(transition: unknown): unknown {
  if (!isObject(transition)) return transition;
  const old = String(transition.eventType);
  const eventType = RENAMED[old];
  if (eventType === undefined) return transition;
  const nested = typeof transition.source === 'string' && transition.source.startsWith(`${ROUND}.`);
  return { ...transition, eventType, ...(TAKEN_BY_ROUND.has(old) && nested ? { source: ROUND } : {}) };
}

/**
 * A recording of the two-actor round in the one-actor round's words. The run's machine: `xstate.done.actor.startChild`
 * becomes `CHILD_STARTED` with the child's id, `startChild`'s error and `awaitReport`'s events become `runRound`'s, and
 * the microsteps that took them in `starting`/`awaitingReport` are taken by the `round` box. The round's actors: the
 * `startChild` actor is the round's `runRound` (created as the round starts); when an `awaitReport` followed it, its
 * settling at the child's start is dropped and the `awaitReport` actor's lines become the rest of its life (its own
 * creation and start dropped). What the round's children were given and returned is on the machine's lines, as before.
 */
export function migrateOneRoundActor(recording: RoundActorRecording): RoundActorRecording {
  const pairs = pairedSessions(recording.lines);
  const starters = new Set(pairs.values());
  const lines: RoundActorLine[] = [];
  for (const entry of recording.lines) {
    const { line } = entry;
    const session = typeof line.sessionId === 'string' ? line.sessionId : undefined;
    const starter = session === undefined ? undefined : pairs.get(session);
    const event = isObject(line.event) ? line.event : undefined;
    const snapshot = isObject(line.snapshot) ? line.snapshot : undefined;
    if (line.type === '@xstate.actor' && line.name === 'startChild') {
      lines.push({
        ...entry,
        line: { ...line, name: 'runRound', definition: JSON.stringify({ id: 'runRound' }) },
      });
      continue;
    }
    if (starter !== undefined) {
      // The awaitReport actor's own creation and start: the round's actor was created and started already.
      if (line.type === '@xstate.actor' || event?.type === 'xstate.init') continue;
      const sourceId = line.sourceId === session ? { sourceId: starter } : {};
      lines.push({ ...entry, line: { ...line, sessionId: starter, ...sourceId } });
      continue;
    }
    // The startChild actor's settling at the child's start: the round's actor goes on to the report.
    if (
      session !== undefined &&
      starters.has(session) &&
      (event?.type === 'xstate.promise.resolve' ||
        (line.type === '@xstate.snapshot' && snapshot?.status === 'done'))
    )
      continue;
    lines.push({ ...entry, line: withRoundChild(renamedLine(line, pairs, event)) });
  }
  return { header: recording.header, lines: renumberedSessions(lines) };
}

const SESSION = /^x:\d+$/;

/**
 * The lines with their actors' sessions numbered again in order (`x:0`, `x:1`, …): XState numbers a run's actors as
 * it creates them, so a round's one actor takes the number after the last round's, as in a recording made today.
 * Left as they are when a session is not XState's numbering.
 */
function renumberedSessions(lines: RoundActorLine[]): RoundActorLine[] {
  const numbers = new Map<string, string>();
  for (const { line } of lines) {
    if (line.type !== '@xstate.actor') continue;
    if (typeof line.sessionId !== 'string' || !SESSION.test(line.sessionId)) return lines;
    numbers.set(line.sessionId, `x:${numbers.size}`);
  }
  const renumber = (line: Record<string, unknown>, key: string) =>
    typeof line[key] === 'string' && numbers.has(line[key]) ? { [key]: numbers.get(line[key]) } : {};
  return lines.map(({ number, line }) => ({
    number,
    line: {
      ...line,
      ...renumber(line, 'sessionId'),
      ...renumber(line, 'rootId'),
      ...renumber(line, 'parentId'),
      ...renumber(line, 'sourceId'),
    },
  }));
}

/** The round's actor a machine's snapshot holds, by its new id (the snapshot's `children`, keyed by invoke id). */
function withRoundChild(line: Record<string, unknown>): Record<string, unknown> {
  const snapshot = isObject(line.snapshot) ? line.snapshot : undefined;
  const children = isObject(snapshot?.children) ? snapshot.children : undefined;
  if (children === undefined || !('startChild' in children || 'awaitReport' in children)) return line;
  const renamed = Object.fromEntries(
    Object.entries(children).map(([id, child]) => {
      if (id !== 'startChild' && id !== 'awaitReport') return [id, child];
      return ['runRound', isObject(child) && child.id === id ? { ...child, id: 'runRound' } : child];
    }),
  );
  return { ...line, snapshot: { ...snapshot, children: renamed } };
}

/** A line of the run's machine (or any other) with the round's events renamed and its sources re-pointed. */
function renamedLine(
  line: Record<string, unknown>,
  pairs: ReadonlyMap<string, string>,
  event: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (event === undefined || RENAMED[String(event.type)] === undefined) return line;
  const source = typeof line.sourceId === 'string' ? pairs.get(line.sourceId) : undefined;
  switch (line.type) {
    case '@xstate.event':
      return { ...line, event: renamedEvent(event), ...(source === undefined ? {} : { sourceId: source }) };
    case '@xstate.microstep':
      return {
        ...line,
        event: { ...event, type: RENAMED[String(event.type)] },
        transitions: Array.isArray(line.transitions)
          ? line.transitions.map(renamedTransition)
          : line.transitions,
      };
    default:
      return { ...line, event: { ...event, type: RENAMED[String(event.type)] } };
  }
}
