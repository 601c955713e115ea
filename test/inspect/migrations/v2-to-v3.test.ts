import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { machineHash } from '../../../src/inspect/machine-hash.js';
import { migrateOneRoundActor, type RoundActorRecording } from '../../../src/inspect/migrations/v2-to-v3.js';
import { replayRecording } from '../../../src/inspect/replay.js';
import { buildRunModel } from '../../../src/inspect/run-model-builder.js';
import { ralphMachine } from '../../../src/machines/ralph.machine.js';

// Recordings written by the build whose round invoked two actors (startChild, awaitReport): the base of issue 35,
// by test/fixtures/round-actors/record.mjs.
const FIXTURES = new URL('../../fixtures/round-actors/', import.meta.url);
/** The machine that wrote them. */
const TWO_ACTOR_MACHINE = 'sha256:67cef0bed1e34270ced62aa54a640979ea8c0fe401175349d2e5d9cf61c00f03';

const recordingOf = (name: string): RoundActorRecording => {
  const [header, ...lines] = readFileSync(new URL(`${name}.jsonl`, FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  if (header === undefined) throw new Error(`${name} is empty`);
  return { header, lines: lines.map((line, index) => ({ number: index + 2, line })) };
};

/** The recording as today's machine's, migrated (the header names this machine, as the migration chain sets it). */
const migratedText = (recording: RoundActorRecording): string => {
  const migrated = migrateOneRoundActor(recording);
  const header = { ...migrated.header, machineHash: machineHash(ralphMachine) };
  return [header, ...migrated.lines.map(({ line }) => line)]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');
};

/** The session of the run's machine: the first actor of the recording. */
const rootOf = (lines: readonly { line: Record<string, unknown> }[]) => lines[0]?.line.sessionId;

/** How the recorded run ended: the output of the machine's last snapshot. */
const recordedOutput = (recording: RoundActorRecording) =>
  recording.lines
    .map(({ line }) => line)
    .filter((line) => line.type === '@xstate.snapshot' && line.sessionId === rootOf(recording.lines))
    .at(-1)?.snapshot as { output?: unknown } | undefined;

const eventTypes = (text: string) => {
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; sessionId?: string; event?: { type: string } });
  const root = lines[1]?.sessionId;
  return lines
    .filter((line) => line.type === '@xstate.event' && line.sessionId === root)
    .map((line) => line.event?.type);
};

describe('recordings of the two-actor round, migrated to one actor a round', () => {
  it.each(['complete', 'child-fails', 'start-fails', 'cancelled-awaiting-report', 'cancelled-starting'])(
    '%s: replays through this machine, every microstep and snapshot the machine’s own, to the same ending',
    (name) => {
      const recording = recordingOf(name);
      expect(recording.header.machineHash).toBe(TWO_ACTOR_MACHINE);
      const text = migratedText(recording);
      const replay = replayRecording(text);
      expect(replay.outcome).toEqual(recordedOutput(recording)?.output);
      const types = eventTypes(text);
      expect(types.filter((type) => /startChild|awaitReport/.test(String(type)))).toEqual([]);
    },
  );

  it.each(['complete', 'child-fails', 'start-fails', 'cancelled-awaiting-report', 'cancelled-starting'])(
    '%s: read as the base build wrote it, through the migration chain: replayed and reported',
    (name) => {
      const text = readFileSync(new URL(`${name}.jsonl`, FIXTURES), 'utf8');
      const recording = recordingOf(name);
      expect(replayRecording(text).outcome).toEqual(recordedOutput(recording)?.output);
      const model = buildRunModel(text);
      expect(model.recording).toMatchObject({ formatVersion: 1, machineHash: TWO_ACTOR_MACHINE });
      expect(model.ending?.result).toEqual(recordedOutput(recording)?.output);
    },
  );

  it('reads the start as CHILD_STARTED with the child id, and the report as runRound’s', () => {
    const text = migratedText(recordingOf('complete'));
    expect(eventTypes(text)).toEqual([
      'xstate.init',
      ...[1, 2, 3].flatMap(() => ['CHILD_STARTED', 'xstate.done.actor.runRound']),
    ]);
    const model = buildRunModel(text);
    expect(model.rounds.map((round) => [round.round, round.childId, round.outcome])).toEqual([
      [1, 'fixture-child-1', 'continue'],
      [2, 'fixture-child-2', 'continue'],
      [3, 'fixture-child-3', 'complete'],
    ]);
  });

  it('makes each round one actor: the startChild actor lives on to the report, awaitReport’s lines become its own', () => {
    const migrated = migrateOneRoundActor(recordingOf('child-fails'));
    const actors = migrated.lines
      .filter(({ line }) => line.type === '@xstate.actor')
      .map(({ line }) => line.name);
    expect(actors).toEqual(['ralph', 'runRound', 'runRound']);
    const root = rootOf(migrated.lines);
    const rounds = migrated.lines
      .filter(({ line }) => line.type === '@xstate.actor' && line.name === 'runRound')
      .map(({ line }) => line.sessionId);
    expect(new Set(migrated.lines.map(({ line }) => line.sessionId))).toEqual(new Set([root, ...rounds]));
    // Each round's actor starts once and settles once: at its report or failure, not at its child's start (round 1's
    // settling is written after round 2's actor started, as a live run writes it).
    const settled = migrated.lines
      .filter(({ line }) => line.type === '@xstate.snapshot' && line.sessionId !== root)
      .map(({ line }) => [rounds.indexOf(line.sessionId) + 1, (line.snapshot as { status: string }).status]);
    expect(settled).toEqual([
      [1, 'active'],
      [2, 'active'],
      [1, 'done'],
      [2, 'error'],
    ]);
  });

  it('is pure: the recording it was given is unchanged', () => {
    const recording = recordingOf('start-fails');
    const before = JSON.stringify(recording);
    migrateOneRoundActor(recording);
    expect(JSON.stringify(recording)).toBe(before);
  });
});
