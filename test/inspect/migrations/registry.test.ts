import { describe, expect, it } from 'vitest';
import { machineHash } from '../../../src/inspect/machine-hash.js';
import { V1_RECORDING } from '../../../src/inspect/migrations/formats.js';
import { currentRecordingFormat, migrateRecording } from '../../../src/inspect/migrations/migrate.js';
import { RECORDING_MIGRATIONS } from '../../../src/inspect/migrations/registry.js';
import { RECORDING_FORMAT_VERSION } from '../../../src/inspect/recording-format.js';
import { ralphMachine } from '../../../src/machines/ralph.machine.js';

describe('the recording migration chain', () => {
  it('starts at the first format ever written and takes each format to the next, unbroken', () => {
    expect(RECORDING_MIGRATIONS[0]?.from).toBe(V1_RECORDING);
    for (const [index, step] of RECORDING_MIGRATIONS.slice(1).entries())
      expect(step.from).toBe(RECORDING_MIGRATIONS[index]?.to);
    const formats = [V1_RECORDING, ...RECORDING_MIGRATIONS.map((step) => step.to)];
    const keys = formats.map((format) => `${format.formatVersion}/${format.machineHash}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('ends at the format this package writes, with the machine it runs (a changed machine needs a new format)', () => {
    const current = currentRecordingFormat();
    expect(current.formatVersion).toBe(RECORDING_FORMAT_VERSION);
    // When this fails, the machine changed: add a format version and a migration step (registry.ts says how).
    expect(machineHash(ralphMachine)).toBe(current.machineHash);
    // From version 2 on, each version is one machine: versions go up one at a time.
    const versions = RECORDING_MIGRATIONS.map((step) => step.to.formatVersion).filter((v) => v >= 2);
    expect(versions).toEqual(versions.map((_, index) => index + 2));
  });

  it('leaves a recording of today’s format, or of a version 1 machine never released, as it is', () => {
    const today = { header: { formatVersion: RECORDING_FORMAT_VERSION }, lines: [] };
    expect(migrateRecording(today)).toEqual({ recording: today, from: undefined });
    const dev = { header: { formatVersion: 1, machineHash: 'sha256:0000' }, lines: [] };
    expect(migrateRecording(dev)).toEqual({ recording: dev, from: undefined });
  });

  it('takes the first format through every step: the header names today’s format, the file’s is returned', () => {
    const first = {
      header: { formatVersion: 1, machineHash: V1_RECORDING.machineHash, runId: 'r' },
      lines: [],
    };
    const { recording, from } = migrateRecording(first);
    expect(from).toBe(V1_RECORDING);
    expect(recording.header).toEqual({
      formatVersion: RECORDING_FORMAT_VERSION,
      machineHash: currentRecordingFormat().machineHash,
      runId: 'r',
      // The first format recorded no host options: the resume step gives it an empty set of ralph run's.
      host: { ralphRun: {} },
    });
    expect(first.header.formatVersion).toBe(1);
  });
});
