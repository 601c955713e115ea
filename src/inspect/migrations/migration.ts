/** One line of a recording as plain data, and the line number it has in the file (refusals name it). */
export interface MigratingLine {
  number: number;
  line: Record<string, unknown>;
}

/** A recording on its way through the migrations: its header and its later lines, as plain data. */
export interface MigratingRecording {
  header: Record<string, unknown>;
  lines: MigratingLine[];
}

/**
 * One released recording format: the format version its header names and the machine that wrote it (a recording's
 * events, states and snapshots are its machine's). Format version 1 was written by ten machines, told apart by
 * their hash; from version 2 on, a format is one machine, and a new machine is a new format version.
 */
export interface RecordingFormat {
  formatVersion: number;
  /** `sha256:<hex>` of the machine's configuration (machine-hash.ts). */
  machineHash: string;
  /** The first commit of main that wrote it, and what changed then, for the reader of docs/recording.md. */
  since: string;
}

/**
 * A step from one released format to the next: a pure function of the recording's lines (it copies what it changes;
 * a line it adds takes the number of the line it comes from). The header's `formatVersion` and `machineHash` are
 * set to `to`'s by the chain, not by the step.
 */
export interface RecordingMigration {
  from: RecordingFormat;
  to: RecordingFormat;
  /** What the step changes, in a line. */
  change: string;
  migrate(recording: MigratingRecording): MigratingRecording;
}

/** A migration that changes nothing but the header: the machine changed and the lines it records did not. */
export function headerOnly(from: RecordingFormat, to: RecordingFormat, change: string): RecordingMigration {
  return { from, to, change, migrate: (recording) => recording };
}

/** The recording with `update` applied to every line for which it returns a new line (the others kept). */
export function mapLines(
  recording: MigratingRecording,
  update: (line: Record<string, unknown>) => Record<string, unknown> | undefined,
): MigratingRecording {
  return {
    header: recording.header,
    lines: recording.lines.map((entry) => {
      const line = update(entry.line);
      return line === undefined ? entry : { number: entry.number, line };
    }),
  };
}
