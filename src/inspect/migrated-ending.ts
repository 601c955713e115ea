import { migratedEndingDiffers } from '../contract/recording-messages.js';
import type { RecordingFormat } from './migrations/migration.js';
import { RecordingError } from './recording-reader.js';

/** A run's ending in a word: how a snapshot's status and output say it ended (or that it was still going). */
export function endingOf(snapshot: { status?: unknown; output?: unknown }): string {
  if (snapshot.status !== 'done') return 'still going';
  const output = (snapshot.output ?? {}) as {
    ok?: unknown;
    envelope?: { result?: { status?: unknown } };
    failure?: { code?: unknown };
  };
  if (output.ok === true) return String(output.envelope?.result?.status ?? 'with no status');
  return `failed (${String(output.failure?.code ?? 'no code')})`;
}

/**
 * Refuses a replay of an older machine's recording whose ending today's machine does not reach: the recorded last
 * snapshot of the run's machine and the one today's machine reached on the same events must end the run alike
 * (settled the same way with the same result status or failure code, or both still going).
 */
export function checkMigratedEnding(
  from: RecordingFormat,
  line: number,
  recorded: { status?: unknown; output?: unknown },
  replayed: { status?: unknown; output?: unknown },
): void {
  const was = endingOf(recorded);
  const now = endingOf(replayed);
  if (was !== now)
    throw new RecordingError(
      line,
      migratedEndingDiffers(`${from.formatVersion}, machine ${from.machineHash.slice(0, 19)}`, was, now),
    );
}
