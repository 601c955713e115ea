import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineHash } from '../../src/inspect/machine-hash.js';
import { V1_ASK, V3 } from '../../src/inspect/migrations/formats.js';
import { RECORDING_MIGRATIONS } from '../../src/inspect/migrations/registry.js';
import { RecordingError, readRecording } from '../../src/inspect/recording-reader.js';
import { replayRecording } from '../../src/inspect/replay.js';
import { RunSettledError, resumePointOf } from '../../src/inspect/resume-point.js';
import { buildRunModel } from '../../src/inspect/run-model-builder.js';
import { ralphMachine } from '../../src/machines/ralph.machine.js';
import { FIXTURE_FORMATS, RECORDINGS_DIR, SETTLED_RUNS } from '../fixtures/recordings/formats.js';

const fixture = (folder: string, file: string) => readFileSync(join(RECORDINGS_DIR, folder, file), 'utf8');

const outcomeOf = (text: string) => {
  const { outcome } = replayRecording(text);
  return outcome.ok ? outcome.envelope.result.status : outcome.failure.code;
};

describe('recordings of every released format', () => {
  it('a fixture folder for every format the chain reads', () => {
    const chained = [RECORDING_MIGRATIONS[0]?.from, ...RECORDING_MIGRATIONS.map((step) => step.to)];
    const released = chained.filter((format) => format?.formatVersion === 1);
    expect(FIXTURE_FORMATS.map(({ format }) => format)).toEqual(released);
  });

  describe.each(FIXTURE_FORMATS)('$folder', ({ folder, format }) => {
    it('is written in its format, and read in today’s, naming the file’s', () => {
      const text = fixture(folder, 'complete.jsonl');
      expect(JSON.parse(text.split('\n')[0] as string)).toMatchObject({
        formatVersion: 1,
        machineHash: format.machineHash,
      });
      const recording = readRecording(text);
      expect(recording.migratedFrom).toBe(format);
      expect(recording.header).toMatchObject({ formatVersion: 3, machineHash: machineHash(ralphMachine) });
    });

    it.each(SETTLED_RUNS)('replays $file to its ending on today’s machine', ({ file, ending }) => {
      const replay = replayRecording(fixture(folder, file));
      expect(outcomeOf(fixture(folder, file))).toBe(ending);
      // Read in today's words: one actor a round (format 3), its start CHILD_STARTED, its report runRound's.
      expect(replay.steps.map((step) => step.event.type)).toEqual([
        'xstate.init',
        'CHILD_STARTED',
        'xstate.done.actor.runRound',
        'CHILD_STARTED',
        file === 'failed.jsonl' ? 'xstate.error.actor.runRound' : 'xstate.done.actor.runRound',
      ]);
    });

    it.each(SETTLED_RUNS)(
      'reports $file: two rounds, its ending, the format it was written in',
      ({ file }) => {
        const model = buildRunModel(fixture(folder, file));
        expect(model.recording).toMatchObject({ formatVersion: 1, machineHash: format.machineHash });
        expect(model.rounds).toHaveLength(2);
        expect(model.ending?.finalState).toBe(
          file === 'failed.jsonl' ? 'failed' : file.replace('.jsonl', ''),
        );
        expect(() => resumePointOf(fixture(folder, file))).toThrow(RunSettledError);
      },
    );

    it('resumes the interrupted run from round 2, the round 1 report its handoff', () => {
      const text = fixture(folder, 'interrupted.jsonl');
      const resume = resumePointOf(text);
      expect(resume.point).toMatchObject({
        round: 1,
        handoff: { status: 'continue', summary: 'round 1 made progress' },
        agentsStarted: 2,
        uncountedRounds: [2],
      });
      expect(resume.args).toMatchObject({ objective: 'Tick every box', maxRounds: 3 });
      expect(['awaitingReport', 'running.round.awaitingReport']).toContain(resume.lastState);
      expect(buildRunModel(text).rounds).toHaveLength(2);
      expect(() => replayRecording(text)).toThrow(/the recording ends while the run was still going/);
    });
  });

  it('an older machine’s recording whose events today’s machine ends otherwise is refused, naming both endings', () => {
    const text = fixture('v1-nested', 'complete.jsonl');
    const lines = text.trimEnd().split('\n');
    // The second report edited from complete to blocked: today's machine ends the run blocked.
    const at = lines.findLastIndex(
      (line) => line.includes('"sessionId":"x:0"') && line.includes('awaitReport",'),
    );
    lines[at] = (lines[at] as string)
      .replace('"status":"complete"', '"status":"blocked"')
      .replace('"blocker":null', '"blocker":"stuck"');
    const refusal = (() => {
      try {
        replayRecording(lines.join('\n'));
      } catch (error) {
        return error as RecordingError;
      }
      throw new Error('not refused');
    })();
    expect(refusal).toBeInstanceOf(RecordingError);
    const lastSnapshot = lines.findLastIndex((line) =>
      line.includes('"type":"@xstate.snapshot","sessionId":"x:0"'),
    );
    expect(refusal.message).toBe(
      `line ${lastSnapshot + 1}: the recording (format 1, machine sha256:f6a1ff5daaae) ends the run complete; ` +
        "today's machine, taking its events, ends it blocked",
    );
  });

  it('the last release’s recordings replay with every snapshot compared once migrated to one actor a round', () => {
    // Format 3 changed the machine (one actor a round): the migrated lines are today's machine's, microstep by
    // microstep and snapshot by snapshot (test/inspect/migrations/v2-to-v3.test.ts replays them strictly).
    expect(V1_ASK.machineHash).not.toBe(machineHash(ralphMachine));
    expect(V3.machineHash).toBe(machineHash(ralphMachine));
    expect(replayRecording(fixture('v1-ask', 'complete.jsonl')).outcome).toMatchObject({ ok: true });
  });
});
