import type { MigratingRecording, RecordingFormat } from './migration.js';
import { RECORDING_MIGRATIONS } from './registry.js';

/** What the chain did to a recording: the recording in today's format, and the format it was written in. */
export interface MigratedRecording {
  recording: MigratingRecording;
  /** The format the file was written in; undefined when it is today's (nothing was migrated). */
  from: RecordingFormat | undefined;
}

/** The format this package writes: the last step's `to`. */
export function currentRecordingFormat(): RecordingFormat {
  const last = RECORDING_MIGRATIONS.at(-1);
  if (last === undefined) throw new Error('the recording migration chain is empty');
  return last.to;
}

/** Whether a header names this format: its version, and for version 1 its machine too. */
const isFormat = (header: Record<string, unknown>, format: RecordingFormat): boolean =>
  header.formatVersion === format.formatVersion &&
  (format.formatVersion !== 1 || header.machineHash === format.machineHash);

/**
 * Takes a recording through the migration chain from the format its header names to today's, one step at a time.
 * A recording of today's format, or of a version 1 machine this package never released (a development build's), is
 * returned as it is (`from` undefined): a replay refuses the latter by its machine hash, as before.
 */
export function migrateRecording(recording: MigratingRecording): MigratedRecording {
  const start = RECORDING_MIGRATIONS.findIndex((step) => isFormat(recording.header, step.from));
  if (start < 0) return { recording, from: undefined };
  const from = RECORDING_MIGRATIONS[start]?.from;
  let current = recording;
  for (const step of RECORDING_MIGRATIONS.slice(start)) {
    const next = step.migrate(current);
    current = {
      header: { ...next.header, formatVersion: step.to.formatVersion, machineHash: step.to.machineHash },
      lines: next.lines,
    };
  }
  return { recording: current, from };
}
